import { join } from 'node:path';
import type { BrowserWindow } from 'electron';
import { DASHBOARD_HEADERS } from '../core/http/serve-dashboard.ts';
import type { ElectronApi } from './electron-api.ts';

/**
 * One dashboard window, reused. It loads /ui/ from the local server and signs in with a one-time
 * code in the URL fragment (never the admin token); closing it hides it, the router stays in the tray.
 */
export class DashboardWindow {
  private window: BrowserWindow | null = null;
  private quitting = false;

  private readonly electron: ElectronApi;
  private readonly preloadPath: string;
  private readonly signInUrl: () => Promise<string>;

  constructor(electron: ElectronApi, preloadPath: string, signInUrl: () => Promise<string>) {
    this.electron = electron;
    this.preloadPath = preloadPath;
    this.signInUrl = signInUrl;
  }

  async open(): Promise<void> {
    if (this.window && !this.window.isDestroyed()) {
      this.window.show();
      this.window.focus();
      return;
    }
    const window = new this.electron.BrowserWindow({
      width: 1200,
      height: 800,
      title: 'Patchbay',
      show: false,
      webPreferences: { preload: this.preloadPath, contextIsolation: true, sandbox: true, nodeIntegration: false, webviewTag: false, spellcheck: false },
    });
    this.window = window;
    // The same policy the server sends with /ui, also on anything else the window might load (error pages).
    window.webContents.session.webRequest.onHeadersReceived((details, callback) => {
      callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [DASHBOARD_HEADERS['content-security-policy']] } });
    });
    window.on('close', (event) => {
      if (this.quitting) return;
      event.preventDefault();
      window.hide();
    });
    window.once('ready-to-show', () => window.show());
    await window.loadURL(await this.signInUrl());
  }

  /** Lets the next close really close (quit). */
  destroy(): void {
    this.quitting = true;
    if (this.window && !this.window.isDestroyed()) this.window.destroy();
    this.window = null;
  }
}

export function preloadPath(electronDir: string): string {
  return join(electronDir, 'preload.cjs');
}
