import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Who serves a data dir: written to DATA_DIR/patchbay.lock while a Patchbay runs on it. */
export interface LockHolder {
  pid: number;
  /** Null until the server listens. */
  url: string | null;
  port: number | null;
  started_at: string;
  data_dir: string;
}

/** A second Patchbay on a data dir one already serves: says which process holds it. */
export class DataDirInUseError extends Error {
  readonly holder: LockHolder;
  constructor(holder: LockHolder) {
    super(
      `Another Patchbay (process ${holder.pid}${holder.url ? `, ${holder.url}` : ''}, started ${holder.started_at}) already serves the data dir ${holder.data_dir}. ` +
        'One data dir is served by one process: use that one (its dashboard: "patchbay ui"), stop it first, or start this one with another --data-dir.',
    );
    this.holder = holder;
  }
}

export interface DataDirLock {
  /** Records the address once the server listens (for the CLI and for a second start's message). */
  listening(url: string, port: number): void;
  release(): void;
}

/** Whether a process with this id runs (EPERM: it runs, as another user). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(path: string): (LockHolder & { token?: string }) | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockHolder & { token?: string };
  } catch {
    return null;
  }
}

/**
 * Takes DATA_DIR/patchbay.lock for this process, or throws DataDirInUseError naming the process that
 * holds it. Two servers on one data dir would share its database and its server.json, and when one
 * stopped the CLI would lose the other. A lock left by a process that no longer runs (kill -9, a
 * crash) is taken over.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const path = join(dataDir, 'patchbay.lock');
  const token = randomBytes(8).toString('hex');
  const holder: LockHolder = { pid: process.pid, url: null, port: null, started_at: new Date().toISOString(), data_dir: dataDir };
  const write = (flag: 'wx' | 'w') => writeFileSync(path, JSON.stringify({ ...holder, token }), { mode: 0o600, flag });
  for (let attempt = 0; ; attempt++) {
    try {
      write('wx');
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const current = readHolder(path);
      // The same process may reopen its own data dir (an in-process restart); another live one holds it.
      if (current && current.pid !== process.pid && processRuns(current.pid)) throw new DataDirInUseError(current);
      rmSync(path, { force: true });
    }
  }
  const ours = () => readHolder(path)?.token === token;
  return {
    listening(url, port) {
      holder.url = url;
      holder.port = port;
      if (ours()) write('w');
    },
    release() {
      if (ours()) rmSync(path, { force: true });
    },
  };
}

/**
 * The per-user list of running servers (one file per process), so a CLI started without --data-dir
 * finds a Patchbay that serves another data dir. In XDG_RUNTIME_DIR when set (private to the user,
 * cleared at logout), else in a private folder of the temp dir.
 */
export function runningServersDir(env: NodeJS.ProcessEnv): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return env.XDG_RUNTIME_DIR ? join(env.XDG_RUNTIME_DIR, 'patchbay') : join(tmpdir(), `patchbay-${uid}`);
}

/** Adds this server to the list; returns the function that removes it. */
export function announceServer(env: NodeJS.ProcessEnv, entry: { url: string; data_dir: string }): () => void {
  const dir = runningServersDir(env);
  const file = join(dir, `${process.pid}.json`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(file, JSON.stringify({ pid: process.pid, ...entry }), { mode: 0o600 });
  } catch {
    // Only a convenience for the CLI: a server that cannot write here still serves.
    return () => undefined;
  }
  return () => rmSync(file, { force: true });
}

/** The servers on the list whose process still runs. */
export function listRunningServers(env: NodeJS.ProcessEnv): { pid: number; url: string; data_dir: string }[] {
  const dir = runningServersDir(env);
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  const servers: { pid: number; url: string; data_dir: string }[] = [];
  for (const file of files) {
    try {
      const entry = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { pid: number; url: string; data_dir: string };
      if (processRuns(entry.pid)) servers.push(entry);
      else rmSync(join(dir, file), { force: true });
    } catch {
      // A file being written, or foreign: ignored.
    }
  }
  return servers;
}
