import pg from 'pg';
import { catalogDataSchema, type CatalogData } from '../catalog/catalog-schema.ts';
import type { CatalogStore } from '../catalog/catalog-store.ts';
import { PostgresListener } from './postgres-listener.ts';
import { migratePostgres } from './postgres-migrations.ts';

/** Every replica listens here; a replica that updated the catalog notifies the others. */
export const CATALOG_CHANNEL = 'patchbay_catalog';

/**
 * A team's updated catalog in PostgreSQL: one row, written with a NOTIFY in the same transaction,
 * so one replica's `patchbay models update` reaches every replica without a restart; a replica
 * whose LISTEN connection comes back reads the row again (a missed notification is caught up).
 */
export class PostgresCatalogStore implements CatalogStore {
  onChange: CatalogStore['onChange'] = null;
  private readonly pool: pg.Pool;
  private readonly log: (line: string) => void;
  /** The row's revision this replica last handed on; a notification of it (its own save) is not handed on again. */
  private revision = -1;

  constructor(pool: pg.Pool, listener: PostgresListener, log: (line: string) => void) {
    this.pool = pool;
    this.log = log;
    const reload = async () => {
      const row = await this.read();
      if (row && row.revision !== this.revision) {
        this.revision = row.revision;
        this.onChange?.(row.data);
      }
    };
    listener.add(CATALOG_CHANNEL, { notify: () => void reload().catch(() => undefined), connected: () => reload().catch(() => undefined) });
  }

  async load(): Promise<CatalogData | null> {
    const row = await this.read();
    if (row) this.revision = row.revision;
    return row?.data ?? null;
  }

  async save(data: CatalogData): Promise<void> {
    const result = await this.pool.query<{ revision: string }>(
      `WITH saved AS (
         INSERT INTO gateway_catalog (id, revision, prices_as_of, data) VALUES (1, nextval('gateway_catalog_revisions'), $1, $2)
         ON CONFLICT (id) DO UPDATE SET revision = EXCLUDED.revision, prices_as_of = EXCLUDED.prices_as_of, data = EXCLUDED.data, updated_at = now()
         RETURNING revision)
       SELECT revision, pg_notify($3, revision::text) FROM saved`,
      [data.pricesAsOf, JSON.stringify(data), CATALOG_CHANNEL],
    );
    this.revision = Number(result.rows[0].revision);
  }

  private async read(): Promise<{ revision: number; data: CatalogData } | null> {
    const result = await this.pool.query<{ revision: string; data: string }>('SELECT revision, data FROM gateway_catalog WHERE id = 1');
    if (result.rows.length === 0) return null;
    const parsed = catalogDataSchema.safeParse(JSON.parse(result.rows[0].data));
    if (!parsed.success) {
      // Written by a newer Patchbay: this replica keeps what it has.
      this.log(`The team's updated catalog in PostgreSQL is not one this Patchbay reads (${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}); keeping the catalog in use.`);
      return null;
    }
    return { revision: Number(result.rows[0].revision), data: parsed.data };
  }
}

/**
 * The team's catalog store for a one-off command (`patchbay models update` with
 * PATCHBAY_DATABASE_URL and no replica on this machine): its save notifies the running replicas.
 */
export async function openPostgresCatalogStore(url: string, log: (line: string) => void): Promise<{ store: PostgresCatalogStore; close(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5_000 });
  try {
    await migratePostgres(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  // Never started: a one-off command saves and leaves; it needs no notifications.
  const store = new PostgresCatalogStore(pool, new PostgresListener(url, log), log);
  return { store, close: () => pool.end() };
}
