import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readShippedCatalog } from '../../core/catalog/load-catalog.ts';
import type { CatalogData } from '../../core/catalog/catalog-schema.ts';
import { PostgresCatalogStore } from '../../core/postgres/postgres-catalog-store.ts';
import { PostgresListener } from '../../core/postgres/postgres-listener.ts';
import { migratePostgres } from '../../core/postgres/postgres-migrations.ts';
import { startPostgres, type TestPostgres } from '../helpers/start-postgres.ts';

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
        const pool = new pg.Pool({ connectionString: url });
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
});
