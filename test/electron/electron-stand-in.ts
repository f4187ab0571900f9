// An in-memory stand-in of the few Electron APIs the shell calls (the real Electron cannot run
// here: its binary cannot be downloaded). It records what the shell did, so tests can check it
// and click menu items as a user would.
import { EventEmitter } from 'node:events';
import type { ElectronApi } from '../../electron/electron-api.ts';

type Template = { label?: string; type?: string; checked?: boolean; enabled?: boolean; click?: () => void; submenu?: Template[] };

export function createElectronStandIn(options: { lockAvailable?: boolean; dialogAnswer?: number } = {}) {
  const app = Object.assign(new EventEmitter(), {
    exited: null as number | null,
    quitCalled: false,
    openAtLogin: false,
    requestSingleInstanceLock: () => options.lockAvailable ?? true,
    whenReady: () => Promise.resolve(),
    quit() {
      app.quitCalled = true;
    },
    exit(code = 0) {
      app.exited = code;
    },
    getVersion: () => '0.1.0-test',
    getLoginItemSettings: () => ({ openAtLogin: app.openAtLogin }),
    setLoginItemSettings(settings: { openAtLogin: boolean }) {
      app.openAtLogin = settings.openAtLogin;
    },
  });
  const trays: StandInTray[] = [];
  class StandInTray {
    image: string;
    tooltip = '';
    menu: Template[] = [];
    destroyed = false;
    constructor(image: { path: string }) {
      this.image = image.path;
      trays.push(this);
    }
    setImage(image: { path: string }) {
      this.image = image.path;
    }
    setToolTip(text: string) {
      this.tooltip = text;
    }
    setContextMenu(menu: { template: Template[] }) {
      this.menu = menu.template;
    }
    destroy() {
      this.destroyed = true;
    }
  }
  const windows: StandInWindow[] = [];
  class StandInWindow extends EventEmitter {
    loadedUrl: string | null = null;
    visible = false;
    destroyed = false;
    headerHook: ((details: { responseHeaders: Record<string, string[]> }, cb: (r: { responseHeaders: Record<string, string[]> }) => void) => void) | null = null;
    readonly webContents = { session: { webRequest: { onHeadersReceived: (hook: StandInWindow['headerHook']) => (this.headerHook = hook) } } };
    readonly options: { webPreferences: Record<string, unknown> };
    constructor(options: { webPreferences: Record<string, unknown> }) {
      super();
      this.options = options;
      windows.push(this);
    }
    async loadURL(url: string) {
      this.loadedUrl = url;
      this.emit('ready-to-show');
    }
    show() {
      this.visible = true;
    }
    hide() {
      this.visible = false;
    }
    focus() {}
    isDestroyed() {
      return this.destroyed;
    }
    destroy() {
      this.destroyed = true;
    }
    /** What clicking the window's close button does. */
    userClose() {
      let prevented = false;
      this.emit('close', { preventDefault: () => (prevented = true) });
      if (!prevented) this.destroyed = true;
    }
  }
  const notifications: { title: string; body: string }[] = [];
  const clipboardWrites: string[] = [];
  const opened: string[] = [];
  const dialogs: { message: string; buttons: string[] }[] = [];
  const ipcHandlers = new Map<string, (event: { senderFrame: { url: string } | null }, payload: unknown) => unknown>();
  const electron = {
    app,
    Tray: StandInTray,
    Menu: { buildFromTemplate: (template: Template[]) => ({ template }) },
    BrowserWindow: StandInWindow,
    Notification: class {
      readonly options: { title: string; body: string };
      constructor(options: { title: string; body: string }) {
        this.options = options;
      }
      show() {
        notifications.push(this.options);
      }
    },
    shell: {
      openPath: async (path: string) => (opened.push(path), ''),
      openExternal: async (url: string) => void opened.push(url),
    },
    clipboard: { writeText: (text: string) => void clipboardWrites.push(text) },
    ipcMain: { handle: (channel: string, fn: (event: { senderFrame: { url: string } | null }, payload: unknown) => unknown) => void ipcHandlers.set(channel, fn) },
    nativeImage: { createFromPath: (path: string) => ({ path }) },
    dialog: {
      showMessageBox: async (o: { message: string; buttons: string[] }) => (dialogs.push(o), { response: options.dialogAnswer ?? 0, checkboxChecked: false }),
    },
  };
  return { electron: electron as unknown as ElectronApi, app, trays, windows, notifications, clipboardWrites, opened, dialogs, ipcHandlers };
}

/** Clicks the tray menu item with this label (searching submenus), as a user would. */
export function clickTrayItem(menu: Template[], label: string): void {
  for (const item of menu) {
    if (item.label === label && item.click) return item.click();
    if (item.submenu) {
      const inner = item.submenu.find((i) => i.label === label);
      if (inner?.click) return inner.click();
    }
  }
  throw new Error(`No tray item "${label}"`);
}
