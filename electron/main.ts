/**
 * The desktop shell: starts Patchbay's core in the main process, puts it in the tray and opens the
 * dashboard. It holds no routing logic; everything it calls is core/, which also runs headless.
 */
import { app, BrowserWindow } from 'electron';
import { startCore, type RunningCore } from './start-core.ts';
import { createTray } from './create-tray.ts';
import { openDashboardWindow } from './open-dashboard-window.ts';
import { applySecurityRules } from './security-rules.ts';
import { NODE_FLAGS } from '../bin/node-flags.js';

let core: RunningCore | null = null;

// The same V8 heap settings as `patchbay serve` (bin/node-flags.js says why).
app.commandLine.appendSwitch('js-flags', NODE_FLAGS.join(' '));

if (!app.requestSingleInstanceLock()) {
  // Another Patchbay is running: it gets the focus (see 'second-instance'), this one leaves.
  app.quit();
} else {
  app.on('second-instance', () => {
    if (core) openDashboardWindow(core);
  });
  applySecurityRules(app);
  app.whenReady().then(async () => {
    core = await startCore();
    createTray(core, () => quit());
    openDashboardWindow(core);
  });
  // Closing the window keeps the router running in the tray.
  app.on('window-all-closed', () => undefined);
}

async function quit(): Promise<void> {
  for (const window of BrowserWindow.getAllWindows()) window.destroy();
  await core?.patchbay.close();
  app.exit(0);
}
