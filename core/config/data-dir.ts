import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The per-user app-data folder of the OS, or PATCHBAY_HOME when set. */
export function resolveDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (env.PATCHBAY_HOME) return resolve(env.PATCHBAY_HOME);
  const home = homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Patchbay');
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Patchbay');
  return join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'patchbay');
}
