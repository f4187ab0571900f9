import type { MenuItemConstructorOptions, Tray } from 'electron';
import type { ElectronApi } from './electron-api.ts';
import { buildTrayMenu, type TrayAction, type TrayMenuItem } from './model/tray-menu.ts';
import { trayIconState, trayTooltip, type TrayState } from './model/tray-state.ts';
import { trayIconPath } from './tray-icons.ts';

export interface TrayView {
  tray: Tray;
  /** Redraws icon, tooltip and menu when the state changed. */
  render(state: TrayState): void;
}

/** The tray: a view of TrayState; every choice goes to `act`. */
export function createTray(electron: ElectronApi, iconsDir: string, state: TrayState, act: (action: TrayAction) => void): TrayView {
  const iconFor = (s: TrayState) => electron.nativeImage.createFromPath(trayIconPath(iconsDir, trayIconState(s), process.platform));
  const tray = new electron.Tray(iconFor(state));
  let shown: TrayState | null = null;
  const render = (next: TrayState) => {
    if (shown === next) return;
    if (!shown || trayIconState(shown) !== trayIconState(next)) tray.setImage(iconFor(next));
    tray.setToolTip(trayTooltip(next));
    tray.setContextMenu(electron.Menu.buildFromTemplate(toTemplate(buildTrayMenu(next), act)));
    shown = next;
  };
  render(state);
  return { tray, render };
}

function toTemplate(items: TrayMenuItem[], act: (action: TrayAction) => void): MenuItemConstructorOptions[] {
  return items.map((item): MenuItemConstructorOptions => {
    switch (item.type) {
      case 'separator':
        return { type: 'separator' };
      case 'submenu':
        return { label: item.label, submenu: toTemplate(item.items, act) };
      case 'normal': {
        const action = item.action;
        return { label: item.label, enabled: item.enabled, click: action ? () => act(action) : undefined };
      }
      default:
        return { type: item.type, label: item.label, checked: item.checked, click: () => act(item.action) };
    }
  });
}
