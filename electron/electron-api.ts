import type * as Electron from 'electron';

/**
 * The parts of Electron the shell calls, passed in rather than imported, so the start-up and quit
 * sequence runs in tests against an in-memory stand-in (the real Electron cannot run there).
 */
export type ElectronApi = Pick<typeof Electron, 'app' | 'Tray' | 'Menu' | 'BrowserWindow' | 'Notification' | 'shell' | 'clipboard' | 'ipcMain' | 'nativeImage' | 'dialog'>;
