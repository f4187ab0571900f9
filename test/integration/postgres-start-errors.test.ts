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

/** `patchbay serve --database URL` that cannot use the database: one message saying what to fix, no stack trace, no password. */
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
    expect(result.stderr).toContain('Cannot use PostgreSQL at');
    expect(result.stderr).toContain('Check that PostgreSQL is running and reachable there');
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stdout + result.stderr).not.toContain(password);
  };

  it('nothing listening at the URL: says so and what to check', async () => {
    const port = await closedPort();
    const result = (await spawnServe(['--database', `postgres://team:s3cret-pw@127.0.0.1:${port}/patchbay`], { PATCHBAY_HOME: join(dir, 'refused') })) as ServeRefusal;
    expectClearRefusal(result, 's3cret-pw');
    expect(result.stderr).toContain('ECONNREFUSED');
  }, 120_000);

  it('a database that does not exist on a running PostgreSQL: PostgreSQL’s own words, no stack', async () => {
    const url = new URL(await cluster.createDatabase());
    url.pathname = '/no_such_database';
    url.password = 'other-pw';
    const result = (await spawnServe(['--database', url.toString()], { PATCHBAY_HOME: join(dir, 'missing') })) as ServeRefusal;
    expectClearRefusal(result, 'other-pw');
    expect(result.stderr).toContain('no_such_database');
  }, 120_000);
});
