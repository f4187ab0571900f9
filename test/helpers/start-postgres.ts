import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** A throwaway PostgreSQL cluster: initdb + pg_ctl in a temp dir, on a free loopback port. */
export interface TestPostgres {
  /** postgres://SUPERUSER@127.0.0.1:PORT/postgres (trust authentication unless started with passwords, loopback only). */
  url: string;
  port: number;
  /** A fresh, empty database; returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server (fast shutdown: connections are cut) and starts it again on the same port (restart tests). */
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  /** The folder of the server's Unix socket (psql -h DIR connects there as the superuser, trusted). */
  socketDir: string;
  /** Runs SQL as the superuser over the socket (psql -At, stopping at the first error); returns its output. */
  psql(sql: string, database?: string): Promise<string>;
  /** Stops the server and removes the cluster. */
  stop(): Promise<void>;
}

/** The folder holding initdb and pg_ctl: Debian's newest /usr/lib/postgresql/N/bin, else whatever is on PATH. */
export function postgresBinDir(): string | null {
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((v) => existsSync(join(debian, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
    if (versions.length) return join(debian, versions[0], 'bin');
  }
  try {
    const initdb = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim();
    return initdb ? initdb.slice(0, initdb.lastIndexOf('/')) : null;
  } catch {
    return null;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** PostgreSQL refuses to run as root: as root the cluster belongs to the system user `postgres` (Debian's package creates it). */
function runAs(): { user: string; uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { user: 'postgres', uid, gid };
}

export interface StartPostgresOptions {
  /** The cluster's superuser (default "patchbay"); a deployment test names it "postgres", as Debian's package does, and creates "patchbay" itself. */
  superuser?: string;
  /** Loopback TCP connections need a password (scram-sha-256), as on a real server; the socket stays trusted for psql as the superuser. */
  passwords?: boolean;
}

/** Starts a throwaway cluster. Stop it in afterAll: `await pg.stop()`. */
export async function startPostgres(settings: StartPostgresOptions = {}): Promise<TestPostgres> {
  const superuser = settings.superuser ?? 'patchbay';
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed: npm test installs it (apt-get install postgresql) when run as root; or install it yourself.');
  const user = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'patchbay-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const as = (command: string, args: string[]) => (user ? run('runuser', ['-u', user.user, '--', join(bin, command), ...args]) : run(join(bin, command), args));
  const auth = settings.passwords ? ['--auth-local=trust', '--auth-host=scram-sha-256'] : ['--auth=trust'];
  await as('initdb', ['-D', data, '-U', superuser, ...auth, '-E', 'UTF8', '--no-sync', '--no-instructions']);
  const port = await freePort();
  // fsync off: a throwaway cluster need not survive an OS crash, and the tests run faster.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const startServer = async () => {
    await as('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  };
  const stopServer = async () => {
    await as('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  };
  await startServer();
  const url = `postgres://${superuser}@127.0.0.1:${port}/postgres`;
  let databases = 0;
  return {
    url,
    port,
    async createDatabase(name = `patchbay_${process.pid}_${++databases}`) {
      await as('psql', ['-h', dir, '-p', String(port), '-U', superuser, '-d', 'postgres', '-q', '-c', `CREATE DATABASE ${name}`]);
      return `postgres://${superuser}@127.0.0.1:${port}/${name}`;
    },
    stopServer,
    startServer,
    socketDir: dir,
    async psql(sql: string, database = 'postgres') {
      const { stdout } = await as('psql', ['-h', dir, '-p', String(port), '-U', superuser, '-d', database, '-q', '-v', 'ON_ERROR_STOP=1', '-At', '-c', sql]);
      return stdout;
    },
    async stop() {
      try {
        await stopServer();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * A pg pool for a test's own queries. An idle client whose connection the server ends (the
 * cluster stopping at the end of the file, a dropped database) makes the pool emit 'error', which
 * with no listener is an uncaught exception that fails the whole run: as Patchbay's own pool does
 * (open-postgres-stores.ts), it is expected and let go; a query that fails still rejects.
 */
export function testPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', () => undefined);
  return pool;
}
