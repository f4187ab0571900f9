import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { listRunningServers, processRuns } from '../app/data-dir-lock.ts';
import { resolveDataDir } from '../config/data-dir.ts';
import { UsageError } from './usage-error.ts';

/** Whether a Patchbay runs on this data dir (its server.json names a process that runs). */
function served(dataDir: string): boolean {
  const file = join(dataDir, 'server.json');
  if (!existsSync(file)) return false;
  try {
    return processRuns((JSON.parse(readFileSync(file, 'utf8')) as { pid: number }).pid);
  } catch {
    return false;
  }
}

/**
 * The data dir a CLI command works on: --data-dir, else PATCHBAY_HOME, else the default one, unless
 * no server runs there and exactly one runs elsewhere (`serve --data-dir DIR`): then that one, so
 * `patchbay ui` and `providers list` reach the running server instead of an empty default data dir.
 * `say` is told when the CLI picked a server's data dir by itself.
 */
export function findDataDir(values: { 'data-dir'?: string }, env: NodeJS.ProcessEnv, say?: (message: string) => void): string {
  if (values['data-dir']) return values['data-dir'];
  if (env.PATCHBAY_HOME) return resolve(env.PATCHBAY_HOME);
  const fallback = resolveDataDir(env);
  if (served(fallback)) return fallback;
  const list = listRunningServers(env);
  if (list.refused) say?.(`${list.refused}\n`);
  const running = list.servers.filter((s) => s.data_dir !== fallback && served(s.data_dir));
  if (running.length === 1) {
    say?.(`Using the Patchbay running at ${running[0].url} (process ${running[0].pid}, data dir ${running[0].data_dir}); pass --data-dir to choose another.\n`);
    return running[0].data_dir;
  }
  if (running.length > 1) {
    throw new UsageError(
      `Several Patchbay servers run, none on the default data dir ${fallback}; say which with --data-dir:\n${running.map((s) => `  --data-dir ${s.data_dir}   (${s.url}, process ${s.pid})`).join('\n')}`,
    );
  }
  return fallback;
}
