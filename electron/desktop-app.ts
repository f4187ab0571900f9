import { loadAlertLedger, saveAlertLedger } from './alert-ledger-file.ts';
import { connectRouter, type CoreOptions } from './connect-router.ts';
import { createTray, type TrayView } from './create-tray.ts';
import { DashboardWindow } from './dashboard-window.ts';
import type { ElectronApi } from './electron-api.ts';
import { decideAlerts, type Alert } from './model/alert-rules.ts';
import { trayKeyName, type TrayAction } from './model/tray-menu.ts';
import { applyEvent, type TrayState } from './model/tray-state.ts';
import { registerIpc } from './register-ipc.ts';
import type { RouterConnection } from './router-connection.ts';
import { applySecurityRules } from './security-rules.ts';

export interface DesktopOptions {
  core: CoreOptions;
  /** Where tray-*.png are (build/icons in development, resources/icons when packaged). */
  iconsDir: string;
  preloadPath: string;
  now?: () => number;
}

export interface DesktopApp {
  /** Resolves once the tray is up (false: this launch quit - another instance runs, or the user chose to quit). */
  ready: Promise<boolean>;
  connection(): RouterConnection | null;
  state(): TrayState | null;
  /** What the tray's menu item does (the same path a click takes). */
  act(action: TrayAction): Promise<void>;
  /** Stops accepting, drains, flushes usage, exits. */
  quit(): Promise<void>;
}

/**
 * The main process as a chain of small steps: single-instance lock, security rules, the router
 * (attached or in-process), the tray fed by live events, alerts, IPC, the dashboard window, and quit.
 */
export function startDesktopApp(electron: ElectronApi, options: DesktopOptions): DesktopApp {
  const { app } = electron;
  const now = options.now ?? Date.now;
  let connection: RouterConnection | null = null;
  let state: TrayState | null = null;
  let trayView: TrayView | null = null;
  let unsubscribe: (() => void) | null = null;
  let quitting: Promise<void> | null = null;
  const origin = () => connection?.baseUrl ?? null;
  const window = new DashboardWindow(electron, options.preloadPath, () => (connection ? connection.signInUrl() : Promise.reject(new Error('Patchbay is not running.'))));
  const notify = (alert: Alert) => new electron.Notification({ title: alert.title, body: alert.body }).show();
  const report = (what: string) => (error: unknown) => notify({ title: `Patchbay: ${what} failed`, body: error instanceof Error ? error.message : String(error) });

  if (!app.requestSingleInstanceLock()) {
    // Another Patchbay app runs: it gets the focus through its 'second-instance' event.
    app.quit();
    return { ready: Promise.resolve(false), connection: () => null, state: () => null, act: async () => undefined, quit: async () => undefined };
  }
  app.on('second-instance', () => void window.open().catch(report('Opening the dashboard')));
  // Closing the window keeps the router running in the tray.
  app.on('window-all-closed', () => undefined);
  app.on('before-quit', (event) => {
    if (quitting) return;
    event.preventDefault();
    void quit();
  });
  applySecurityRules(electron, origin);

  const setState = (next: TrayState) => {
    state = next;
    trayView?.render(next);
  };

  async function act(action: TrayAction): Promise<void> {
    if (!connection || !state) return;
    switch (action.kind) {
      case 'set-strategy':
        // Takes effect on the next request; the routing event redraws the menu. Saved in config.json.
        return connection.setStrategy(action.strategy);
      case 'pause':
        return connection.setPaused(true);
      case 'resume':
        return connection.setPaused(false);
      case 'copy-base-url':
        return electron.clipboard.writeText(`${connection.baseUrl}/v1`);
      case 'create-key': {
        const name = trayKeyName(now());
        electron.clipboard.writeText(await connection.createKey(name));
        return notify({ title: 'New Patchbay key copied', body: `Key "${name}" is on the clipboard; it is shown only this once (Patchbay keeps a hash).` });
      }
      case 'open-dashboard':
        return window.open();
      case 'open-data-folder': {
        const error = await electron.shell.openPath(connection.dataDir);
        if (error) throw new Error(`Could not open ${connection.dataDir}: ${error}`);
        return;
      }
      case 'set-start-at-login':
        app.setLoginItemSettings({ openAtLogin: action.enabled });
        return setState({ ...state, startAtLogin: app.getLoginItemSettings().openAtLogin });
      case 'quit':
        return quit();
    }
  }

  function quit(): Promise<void> {
    quitting ??= (async () => {
      unsubscribe?.();
      window.destroy();
      trayView?.tray.destroy();
      try {
        // In-process: stop accepting, drain in-flight requests, flush usage, close the database.
        await connection?.close();
      } finally {
        app.exit(0);
      }
    })();
    return quitting;
  }

  const ready = (async () => {
    await app.whenReady();
    connection = await connectRouter(electron, options.core, (title, body) => notify({ title, body }));
    if (!connection) {
      app.exit(0);
      return false;
    }
    const snapshot = await connection.snapshot();
    let ledger = loadAlertLedger(connection.dataDir, now());
    setState({ baseUrl: connection.baseUrl, mode: connection.mode, ...snapshot, startAtLogin: app.getLoginItemSettings().openAtLogin });
    trayView = createTray(electron, options.iconsDir, state!, (action) => void act(action).catch(report(action.kind)));
    const dataDir = connection.dataDir;
    unsubscribe = connection.subscribe((event) => {
      if (state) setState(applyEvent(state, event, now()));
      const decided = decideAlerts(ledger, event, now());
      if (decided.ledger !== ledger) {
        const changedShown = decided.ledger.shown !== ledger.shown;
        ledger = decided.ledger;
        if (changedShown) saveAlertLedger(dataDir, ledger);
      }
      for (const alert of decided.alerts) notify(alert);
    });
    registerIpc(electron, origin, {
      'patchbay:get-desktop-info': () => ({ version: app.getVersion(), dataDir, mode: connection!.mode, startAtLogin: app.getLoginItemSettings().openAtLogin }),
      'patchbay:set-start-at-login': async ({ enabled }) => {
        await act({ kind: 'set-start-at-login', enabled });
        return { startAtLogin: app.getLoginItemSettings().openAtLogin };
      },
      'patchbay:open-data-folder': () => act({ kind: 'open-data-folder' }),
    });
    await window.open();
    return true;
  })().catch((error: unknown) => {
    // Whatever stopped the start (an unreadable config, a locked database): said once, then exit.
    notify({ title: 'Patchbay could not start', body: error instanceof Error ? error.message : String(error) });
    app.exit(1);
    return false;
  });

  return { ready, connection: () => connection, state: () => state, act, quit };
}
