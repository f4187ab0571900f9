// Preload (CommonJS, sandboxed: it can load only 'electron'). Exposes one typed object to the
// dashboard, one function per IPC message of electron/model/ipc-contract.ts; the main process
// validates every payload and checks the sending frame. No token, no Node, no Electron API leaks.
const { contextBridge, ipcRenderer } = require('electron') as typeof import('electron');

contextBridge.exposeInMainWorld('patchbayDesktop', {
  getDesktopInfo: () => ipcRenderer.invoke('patchbay:get-desktop-info', {}),
  setStartAtLogin: (enabled: boolean) => ipcRenderer.invoke('patchbay:set-start-at-login', { enabled }),
  openDataFolder: () => ipcRenderer.invoke('patchbay:open-data-folder', {}),
});
