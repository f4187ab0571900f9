import { join } from 'node:path';
import type { TrayIconState } from './model/tray-state.ts';

/**
 * The tray image for a state, from build/icons/ (scripts/make-icons.js renders them from
 * build/icon.svg). macOS gets template images (black and alpha; the menu bar tints them) with the
 * state drawn as a shape, since a template image cannot carry colour.
 */
export function trayIconPath(iconsDir: string, state: TrayIconState, platform: NodeJS.Platform): string {
  return join(iconsDir, platform === 'darwin' ? `tray-${state}Template.png` : `tray-${state}.png`);
}
