import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres } from '../helpers/start-postgres.ts';

describe('the throwaway PostgreSQL cluster the store tests run against', () => {
  let cluster: TestPostgres;
  beforeAll(async () => {
    cluster = await startPostgres();
  }, 60_000);
  afterAll(() => cluster?.stop());

  it('answers on loopback, gives each test a fresh database, and comes back after a restart', async () => {
    const url = await cluster.createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    expect((await client.query('SELECT current_database() AS name')).rows[0].name).toBe(url.split('/').pop());
    await client.query('CREATE TABLE t (n integer)');
    await client.end();
    await cluster.stopServer();
    await cluster.startServer();
    const again = new pg.Client({ connectionString: url });
    await again.connect();
    expect((await again.query('SELECT count(*)::int AS n FROM t')).rows[0].n).toBe(0);
    await again.end();
  }, 60_000);
});
