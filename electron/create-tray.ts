import { clipboard, Menu, nativeImage, Tray } from 'electron';
import type { RunningCore } from './start-core.ts';
import { openDashboardWindow } from './open-dashboard-window.ts';

let tray: Tray | null = null;

/** The tray icon: open the dashboard, copy the base URL for a client, quit (which stops the router). */
export function createTray(core: RunningCore, quit: () => void): Tray {
  tray = new Tray(nativeImage.createEmpty());
  tray.setToolTip(`Patchbay — ${core.patchbay.url}/v1`);
  tray.setContextMenu(
    Menu.buildFromTemplate([
      { label: 'Open dashboard', click: () => openDashboardWindow(core) },
      { label: 'Copy base URL', click: () => clipboard.writeText(`${core.patchbay.url}/v1`) },
      { type: 'separator' },
      { label: 'Quit Patchbay', click: quit },
    ]),
  );
  return tray;
}
