import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveSettings } from '../../core/config/config-store.ts';
import { PostgresConfigStore } from '../../core/postgres/postgres-config-store.ts';
import { PostgresListener } from '../../core/postgres/postgres-listener.ts';
import { migratePostgres } from '../../core/postgres/postgres-migrations.ts';
import { PostgresDashboardSessions } from '../../core/postgres/postgres-session-store.ts';
import { startPostgres, testPool, type TestPostgres } from '../helpers/start-postgres.ts';
import { FILE_CONFIG, runConfigStoreContract, runSignInContract } from './config-store-contract.ts';

let cluster: TestPostgres;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster?.stop());

/** A migrated database and a pool on it; the stores' listeners are started only where a test needs notifications. */
async function database() {
  const url = await cluster.createDatabase();
  const pool = testPool({ connectionString: url, max: 4 });
  await migratePostgres(pool);
  return { url, pool };
}

runConfigStoreContract('PostgreSQL', async (file) => {
  const { url, pool } = await database();
  const open = (raw: unknown) => new PostgresConfigStore(pool, new PostgresListener(url, () => undefined), { path: 'config.json', fileRaw: raw, log: () => undefined });
  return { store: open(file), reopen: async (raw) => open(raw), cleanup: () => pool.end() };
});

runSignInContract('PostgreSQL', async ({ now }) => {
  const { pool } = await database();
  return { signIn: new PostgresDashboardSessions(pool, { now }), cleanup: () => pool.end() };
});

describe('PostgreSQL: config store across replicas', () => {
  it("keeps each replica's own sections and tells the other replica of a change", async () => {
    const { url, pool } = await database();
    const listeners: PostgresListener[] = [];
    const replica = (file: unknown) => {
      const listener = new PostgresListener(url, () => undefined);
      listeners.push(listener);
      return { store: new PostgresConfigStore(pool, listener, { path: 'config.json', fileRaw: file, log: () => undefined }), listener };
    };
    try {
      // A's file gives a provider a header that may be a credential: it stays in the file, never in the database.
      const a = replica({ ...FILE_CONFIG, providers: { ...FILE_CONFIG.providers, lab: { baseUrl: 'http://127.0.0.1:1/v1', headers: { 'x-lab-token': 'lab-secret-123456' } } } });
      expect((await a.store.load()).config.providers.get('lab')!.headers).toEqual({ 'x-lab-token': 'lab-secret-123456' });
      expect(JSON.stringify((await pool.query('SELECT * FROM gateway_config')).rows)).not.toContain('lab-secret');
      await a.listener.start();
      // B's file has another port and no routing: the port stays B's own, the routing is the team's.
      const b = replica({ server: { port: 9922 } });
      const seen: LiveSettings[] = [];
      b.store.onChange = (settings) => seen.push(settings);
      expect((await b.store.load()).config).toMatchObject({ port: 9922, strategy: 'latency' });
      await b.listener.start();
      await a.store.edit((raw) => ((raw.routing as Record<string, unknown>).strategy = 'cost'));
      await a.store.setPaused(true);
      await expect.poll(() => seen.at(-1)?.paused, { timeout: 10_000 }).toBe(true);
      expect(seen.at(-1)!.config).toMatchObject({ port: 9922, strategy: 'cost' });
      expect(seen.at(-1)!.config.providers.get('lab')!.headers).toEqual({});
      // A's own change is not told back to A.
      let echoed = 0;
      a.store.onChange = () => echoed++;
      await a.store.edit((raw) => ((raw.routing as Record<string, unknown>).strategy = 'balanced'));
      await expect.poll(() => seen.at(-1)?.config.strategy, { timeout: 10_000 }).toBe('balanced');
      expect(echoed).toBe(0);
      // Seeded again from another file after the row was deleted: the running replica takes it at once.
      await pool.query('DELETE FROM gateway_config');
      const c = replica({ routing: { strategy: 'round-robin' } });
      expect((await c.store.load()).config.strategy).toBe('round-robin');
      await expect.poll(() => seen.at(-1)?.config.strategy, { timeout: 10_000 }).toBe('round-robin');
    } finally {
      for (const listener of listeners) await listener.close();
      await pool.end();
    }
  });
});
