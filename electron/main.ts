/**
 * The desktop shell's entry point (compiled to dist-electron/electron/main.js by scripts/desktop.js).
 * It holds no routing logic: core/ runs here through the same composition root as `patchbay serve`,
 * on the same data dir, so the CLI and the app share keys, config and usage.
 */
import * as electron from 'electron';
import { join } from 'node:path';
import { resolveDataDir } from '../core/config/data-dir.ts';
import { startDesktopApp } from './desktop-app.ts';
import { preloadPath } from './dashboard-window.ts';
import { NODE_FLAGS } from '../bin/node-flags.js';

// The same V8 heap settings as `patchbay serve` (bin/node-flags.js says why).
electron.app.commandLine.appendSwitch('js-flags', NODE_FLAGS.join(' '));

const here = import.meta.dirname;
// Packaged: extraResources puts the icons next to app.asar; in development they are in build/icons.
const iconsDir = electron.app.isPackaged ? join(process.resourcesPath, 'icons') : join(here, '..', '..', 'build', 'icons');

startDesktopApp(electron, {
  core: {
    dataDir: resolveDataDir(),
    keychainService: process.env.PATCHBAY_KEYCHAIN_SERVICE || undefined,
    log: (message) => console.error(message),
    // Packaged, the built dashboard is a resource beside app.asar; in development core finds renderer/dist itself.
    dashboard: electron.app.isPackaged ? { dir: join(process.resourcesPath, 'renderer', 'dist') } : undefined,
  },
  iconsDir,
  preloadPath: preloadPath(here),
});
