import { BrowserWindow } from 'electron';
import { join } from 'node:path';
import type { RunningCore } from './start-core.ts';

let window: BrowserWindow | null = null;

/** One dashboard window, reused; the page is served by core, so it is the same dashboard a browser gets. */
export function openDashboardWindow(core: RunningCore): BrowserWindow {
  if (window && !window.isDestroyed()) {
    window.show();
    window.focus();
    return window;
  }
  window = new BrowserWindow({
    width: 1200,
    height: 800,
    title: 'Patchbay',
    webPreferences: {
      preload: join(import.meta.dirname, 'preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      // The admin token reaches the page through the preload's typed bridge, never the URL.
      additionalArguments: [`--patchbay-admin-token=${core.patchbay.adminToken}`],
    },
  });
  void window.loadURL(core.dashboardUrl);
  return window;
}
