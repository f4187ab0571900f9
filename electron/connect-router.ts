import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { loadAdminToken } from '../core/secrets/admin-token.ts';
import { createPatchbay } from '../core/app/create-patchbay.ts';
import type { PatchbayOptions } from '../core/app/patchbay.ts';
import { httpConnection } from './http-connection.ts';
import { inProcessConnection } from './in-process-connection.ts';
import { findPortHolder } from './find-port-holder.ts';
import { portTakenMessage } from './model/port-holder.ts';
import type { RouterConnection } from './router-connection.ts';
import type { ElectronApi } from './electron-api.ts';

export type CoreOptions = Omit<PatchbayOptions, 'dataDir'> & { dataDir: string };

/** The origin of a `patchbay serve` running on this data dir (server.json, and it answers), or null. */
export async function findRunningServer(dataDir: string, adminToken: string): Promise<string | null> {
  const serverFile = join(dataDir, 'server.json');
  if (!existsSync(serverFile)) return null;
  try {
    const { url } = JSON.parse(readFileSync(serverFile, 'utf8')) as { url: string };
    const response = await fetch(`${url}/api/status`, { headers: { authorization: `Bearer ${adminToken}` }, signal: AbortSignal.timeout(3_000) });
    await response.body?.cancel();
    return response.ok ? url : null;
  } catch {
    // A stale server.json: that server died without removing it.
    return null;
  }
}

/**
 * The router for the app: the one `patchbay serve` already runs on this data dir (after asking), or
 * core started in this process through the composition root, the same as `patchbay serve` does.
 * A taken port names its holder and offers the next free port. Null when the user chose to quit.
 */
export async function connectRouter(electron: ElectronApi, options: CoreOptions, notify: (title: string, body: string) => void): Promise<RouterConnection | null> {
  const adminToken = existsSync(join(options.dataDir, 'admin-token')) ? loadAdminToken(options.dataDir) : null;
  const running = adminToken ? await findRunningServer(options.dataDir, adminToken) : null;
  if (running && adminToken) {
    const { response } = await electron.dialog.showMessageBox({
      type: 'question',
      message: `Patchbay is already running at ${running} (patchbay serve, same data folder).`,
      detail: 'Use it from the tray instead of starting a second router? Quitting the app then leaves that server running.',
      buttons: ['Use the running Patchbay', 'Quit'],
      defaultId: 0,
      cancelId: 1,
    });
    return response === 0 ? httpConnection(running, adminToken, options.dataDir) : null;
  }
  let port = options.port;
  for (;;) {
    try {
      const patchbay = await createPatchbay({ ...options, port });
      return inProcessConnection(patchbay, options.dataDir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EADDRINUSE' && code !== 'EACCES') throw error;
      const taken = (error as NodeJS.ErrnoException & { port?: number }).port ?? port ?? 0;
      const [holder, freePort] = await Promise.all([findPortHolder(taken), findFreePort(taken + 1, options.host ?? '127.0.0.1')]);
      const message = portTakenMessage(taken, holder, freePort);
      notify(message.title, message.detail);
      const buttons = freePort !== null ? [`Start on port ${freePort}`, 'Quit'] : ['Quit'];
      const { response } = await electron.dialog.showMessageBox({ type: 'error', message: message.title, detail: message.detail, buttons, defaultId: 0, cancelId: buttons.length - 1 });
      if (freePort === null || response !== 0) return null;
      port = freePort;
    }
  }
}

/** The first port from `from` on (20 tried) that accepts a listener, else one the OS picks; null if none. */
export async function findFreePort(from: number, host: string): Promise<number | null> {
  for (let port = from; port < from + 20 && port <= 65535; port++) {
    if ((await tryListen(port, host)) !== null) return port;
  }
  return tryListen(0, host);
}

function tryListen(port: number, host: string): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen(port, host, () => {
      const bound = (server.address() as { port: number }).port;
      server.close(() => resolve(bound));
    });
  });
}
