import type { ElectronApi } from './electron-api.ts';
import { dispatchIpc, IPC_CONTRACT, type IpcHandlers } from './model/ipc-contract.ts';

/** One ipcMain handler per contract channel; each checks the sender's frame and validates the payload. */
export function registerIpc(electron: ElectronApi, dashboardOrigin: () => string | null, handlers: IpcHandlers): void {
  for (const channel of Object.keys(IPC_CONTRACT)) {
    electron.ipcMain.handle(channel, (event, payload) => dispatchIpc(channel, event.senderFrame?.url, payload, dashboardOrigin() ?? 'null', handlers));
  }
}
