import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/**
 * Why the list's folder cannot be trusted, or null when it is the user's own, mode 700, and not a
 * link. In a shared temp dir anyone can create `patchbay-UID` first: an entry planted there would
 * send the CLI (and the secrets it carries) to another account's server, and a link planted there
 * would have the server write its entry wherever the link points.
 */
function untrustedFolder(dir: string): string | null {
  if (typeof process.getuid !== 'function') return null;
  let stat;
  try {
    stat = lstatSync(dir);
  } catch {
    return null;
  }
  const why = stat.isSymbolicLink()
    ? 'it is a link'
    : !stat.isDirectory()
      ? 'it is not a folder'
      : stat.uid !== process.getuid()
        ? `it belongs to another user (uid ${stat.uid})`
        : (stat.mode & 0o077) !== 0
          ? `its mode is ${(stat.mode & 0o777).toString(8)}, not 700 (only you may read and write it)`
          : null;
  return why && `Not using the list of running Patchbay servers in ${dir}: ${why}. Remove it (rm -r ${dir}); the next Patchbay started makes it again.`;
}

/** Adds this server to the list; returns the function that removes it. Nothing is written to a folder untrustedFolder refuses. */
export function announceServer(env: NodeJS.ProcessEnv, entry: { url: string; data_dir: string }): () => void {
  const dir = runningServersDir(env);
  const file = join(dir, `${process.pid}.json`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (untrustedFolder(dir)) return () => undefined;
    // O_NOFOLLOW: never written through a link, wherever it came from.
    const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NO_FOLLOW, 0o600);
    try {
      writeFileSync(fd, JSON.stringify({ pid: process.pid, ...entry }));
    } finally {
      closeSync(fd);
    }
  } catch {
    // Only a convenience for the CLI: a server that cannot write here still serves.
    return () => undefined;
  }
  return () => rmSync(file, { force: true });
}

/** The servers on the list whose process still runs, or why the list was not read (`refused`, to tell the user). */
export function listRunningServers(env: NodeJS.ProcessEnv): { servers: { pid: number; url: string; data_dir: string }[]; refused: string | null } {
  const dir = runningServersDir(env);
  const refused = untrustedFolder(dir);
  if (refused) return { servers: [], refused };
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch {
    return { servers: [], refused: null };
  }
  const servers: { pid: number; url: string; data_dir: string }[] = [];
  for (const file of files) {
    try {
      const entry = JSON.parse(readOwnEntry(join(dir, file))) as { pid: number; url: string; data_dir: string };
      if (processRuns(entry.pid)) servers.push(entry);
      else rmSync(join(dir, file), { force: true });
    } catch {
      // A file being written, a link, or foreign: ignored.
    }
  }
  return { servers, refused: null };
}

/** O_NOFOLLOW where the platform has it (not on Windows, where the list lives in the user's own temp dir). */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** An entry's text, opened without following a link and only when the user owns it. */
function readOwnEntry(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | NO_FOLLOW);
  try {
    if (typeof process.getuid === 'function' && fstatSync(fd).uid !== process.getuid()) throw new Error('not ours');
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
