import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runModelsCommand } from '../../core/cli/models-command.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readShippedCatalog } from '../../core/catalog/load-catalog.ts';
import type { CatalogData } from '../../core/catalog/catalog-schema.ts';
import { PostgresCatalogStore } from '../../core/postgres/postgres-catalog-store.ts';
import { PostgresListener } from '../../core/postgres/postgres-listener.ts';
import { migratePostgres } from '../../core/postgres/postgres-migrations.ts';
import { startPostgres, testPool, type TestPostgres } from '../helpers/start-postgres.ts';

let cluster: TestPostgres;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster?.stop());

describe("a team's updated catalog in PostgreSQL", () => {
  it("one replica's update reaches the other at once, and a replica started later reads it", async () => {
    const url = await cluster.createDatabase();
    const replicas = await Promise.all(
      ['a', 'b'].map(async (name) => {
        const pool = testPool({ connectionString: url });
        await migratePostgres(pool);
        const listener = new PostgresListener(url, () => undefined, { name: `catalog test ${name}` });
        const store = new PostgresCatalogStore(pool, listener, () => undefined);
        const seen: CatalogData[] = [];
        store.onChange = (data) => seen.push(data);
        await listener.start();
        return { pool, listener, store, seen };
      }),
    );
    const [a, b] = replicas;
    try {
      expect(await b.store.load()).toBeNull();
      const updated = { ...readShippedCatalog(), pricesAsOf: '2026-11-29' };
      await a.store.save(updated);
      await expect.poll(() => b.seen.map((d) => d.pricesAsOf)).toEqual(['2026-11-29']);
      // The replica that saved does not hear its own update as news.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(a.seen).toEqual([]);
      const later = new PostgresCatalogStore(a.pool, new PostgresListener(url, () => undefined), () => undefined);
      expect((await later.load())?.pricesAsOf).toBe('2026-11-29');
    } finally {
      for (const r of replicas) {
        await r.listener.close();
        await r.pool.end();
      }
    }
  });

  it('patchbay models update with PATCHBAY_DATABASE_URL on a machine with no replica reaches the running replicas', async () => {
    const url = await cluster.createDatabase();
    const pool = testPool({ connectionString: url });
    await migratePostgres(pool);
    const listener = new PostgresListener(url, () => undefined, { name: 'catalog test running replica' });
    const running = new PostgresCatalogStore(pool, listener, () => undefined);
    const seen: string[] = [];
    running.onChange = (data) => seen.push(data.pricesAsOf);
    await listener.start();
    const table = readFileSync(new URL('../../core/catalog/sources/genai-prices.json', import.meta.url), 'utf8');
    const server = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json', 'last-modified': 'Mon, 30 Nov 2026 08:00:00 GMT' }).end(table));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-models-team-'));
    try {
      const out: string[] = [];
      const code = await runModelsCommand(['update', '--url', `http://127.0.0.1:${(server.address() as AddressInfo).port}/data.json`], { out: (t) => out.push(t), err: (t) => out.push(t), env: { PATCHBAY_HOME: dataDir, PATCHBAY_DATABASE_URL: url } });
      expect(out.join('')).toMatch(/^Updated the catalog: 96 models, prices as of 2026-11-30/);
      expect(code).toBe(0);
      await expect.poll(() => seen).toEqual(['2026-11-30']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      rmSync(dataDir, { recursive: true, force: true });
      await listener.close();
      await pool.end();
    }
  });
});
