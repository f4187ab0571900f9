import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServe, type ServeRefusal } from '../helpers/spawn-serve.ts';
import { startPostgres, type TestPostgres } from '../helpers/start-postgres.ts';

/** A free loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * `patchbay serve --database URL` that cannot use the database: one message saying what to fix, no
 * stack trace, no password; only a server that does not answer is told to check that PostgreSQL runs.
 */
describe('patchbay serve with a database it cannot use', () => {
  let cluster: TestPostgres;
  let dir: string;

  beforeAll(async () => {
    cluster = await startPostgres();
    dir = mkdtempSync(join(tmpdir(), 'patchbay-pg-start-'));
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const expectClearRefusal = (result: ServeRefusal, password: string) => {
    expect('url' in result).toBe(false);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stdout + result.stderr).not.toContain(password);
  };
  const psql = (sql: string, database = 'postgres') => execFileSync('psql', [cluster.url.replace(/\/postgres$/, `/${database}`), '-q', '-v', 'ON_ERROR_STOP=1', '-c', sql]);

  it('nothing listening at the URL: says so and what to check', async () => {
    const port = await closedPort();
    const result = (await spawnServe(['--database', `postgres://team:s3cret-pw@127.0.0.1:${port}/patchbay`], { PATCHBAY_HOME: join(dir, 'refused') })) as ServeRefusal;
    expectClearRefusal(result, 's3cret-pw');
    expect(result.stderr).toContain(`Cannot reach PostgreSQL at postgres://team:***@127.0.0.1:${port}/patchbay: connect ECONNREFUSED`);
    expect(result.stderr).toContain('Check that PostgreSQL is running and reachable there');
  }, 120_000);

  it('a database that does not exist on a running PostgreSQL: says to create it, and not to check that PostgreSQL runs', async () => {
    const url = new URL(await cluster.createDatabase());
    url.pathname = '/no_such_database';
    url.password = 'other-pw';
    const result = (await spawnServe(['--database', url.toString()], { PATCHBAY_HOME: join(dir, 'missing') })) as ServeRefusal;
    expectClearRefusal(result, 'other-pw');
    expect(result.stderr).toContain('has no database "no_such_database": create it, owned by "patchbay" (docs/team.md, "Create the database")');
    expect(result.stderr).not.toContain('running');
  }, 120_000);

  it('a user without CREATE on the schema: names the privilege and the GRANT that gives it', async () => {
    const url = new URL(await cluster.createDatabase());
    psql('DROP ROLE IF EXISTS app; CREATE ROLE app LOGIN');
    url.username = 'app';
    const result = (await spawnServe(['--database', url.toString()], { PATCHBAY_HOME: join(dir, 'no-create') })) as ServeRefusal;
    expectClearRefusal(result, 'never-a-password');
    const database = url.pathname.slice(1);
    expect(result.stderr).toContain(`PostgreSQL user "app" lacks the CREATE privilege on schema "public" of database "${database}"`);
    expect(result.stderr).toContain(`psql -d ${database} -c 'GRANT USAGE, CREATE ON SCHEMA public TO app'`);
    expect(result.stderr).not.toContain('running');
  }, 120_000);

  it('a database a newer release migrated past a contract step: names the release to run', async () => {
    const url = await cluster.createDatabase();
    const first = await spawnServe(['--database', url], { PATCHBAY_HOME: join(dir, 'newer-first') });
    if (!('url' in first)) throw new Error(first.stderr);
    first.child.kill('SIGTERM');
    await first.exited;
    psql("UPDATE schema_version SET version = 99, oldest_compatible = 98, written_by = '9.9.0'", url.split('/').pop());
    const result = (await spawnServe(['--database', url], { PATCHBAY_HOME: join(dir, 'newer') })) as ServeRefusal;
    expectClearRefusal(result, 'never-a-password');
    expect(result.stderr).toContain('This PostgreSQL database is at schema 99 (migrated by Patchbay 9.9.0), which works only with Patchbay releases of schema 98 or newer');
    expect(result.stderr).toContain('Run Patchbay 9.9.0 or newer on this replica as well');
    expect(result.stderr).not.toContain('running');
  }, 120_000);
});
