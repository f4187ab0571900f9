import type pg from 'pg';
import type { ConfigStore, LiveSettings } from '../config/config-store.ts';
import { parseConfig, type PatchbayConfig } from '../config/load-config.ts';
import { databaseUnavailable } from './database-unavailable.ts';
import type { PostgresListener } from './postgres-listener.ts';

/** Every replica listens here; the payload is the new revision. */
export const CONFIG_CHANNEL = 'patchbay_config';

/**
 * The config file's sections that a team's replicas share (what the management API writes:
 * strategy, weights, fallback chains, aliases, providers and their models; and the usage settings).
 * The rest (`server`: listen address, allowedHosts, timeouts; `agents`) stays each replica's own,
 * and so do the providers' `headers`, which may carry a credential.
 */
export const SHARED_SECTIONS = ['routing', 'providers', 'usage'] as const;

interface ConfigRow {
  revision: number;
  shared: string;
  paused: boolean;
}

/**
 * The config of a team's replicas in PostgreSQL: one row holding the shared sections as JSON, a
 * revision and the pause. The first replica to start seeds it from its config.json; every
 * replica's own sections keep coming from its file. A change commits with a NOTIFY in the same
 * transaction, before the API answers; each replica reloads the row on the notification, and again
 * after its LISTEN connection comes back (so a missed notification is caught up).
 */
export class PostgresConfigStore implements ConfigStore {
  readonly backend = 'postgres';
  onChange: ConfigStore['onChange'] = null;
  private readonly pool: pg.Pool;
  private readonly path: string | null;
  private readonly fileRaw: Record<string, unknown>;
  private readonly log: (message: string) => void;
  /** The revision this replica applies; -1 before load(). */
  private revision = -1;
  /** Reloads and edits run one at a time, so a replica never applies an older revision after a newer one. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(pool: pg.Pool, listener: PostgresListener, options: { path: string | null; fileRaw: unknown; log: (message: string) => void }) {
    this.pool = pool;
    this.path = options.path;
    this.fileRaw = isObject(options.fileRaw) ? options.fileRaw : {};
    this.log = options.log;
    listener.add(CONFIG_CHANNEL, {
      notify: () => void this.enqueue(() => this.reload()).catch(() => undefined),
      connected: () => this.enqueue(() => this.reload()),
    });
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Seeds the row from this replica's file when there is none yet (the first replica of a database), then reads it. */
  load(): Promise<LiveSettings> {
    return this.enqueue(async () => {
      // Seeding notifies too: replicas running when the row was deleted to seed it again take the new one at once.
      const seeded = await this.pool.query(
        `WITH seeded AS (INSERT INTO gateway_config (id, revision, shared, paused) VALUES (1, nextval('gateway_config_revisions'), $1, false) ON CONFLICT (id) DO NOTHING RETURNING revision)
         SELECT pg_notify($2, revision::text) FROM seeded`,
        [JSON.stringify(sharedPart(this.fileRaw)), CONFIG_CHANNEL],
      );
      const row = await this.read(this.pool);
      if (!seeded.rowCount && SHARED_SECTIONS.some((name) => name in this.fileRaw) && JSON.stringify(sharedPart(this.fileRaw)) !== row.shared) {
        this.log(`config.json's ${SHARED_SECTIONS.join(', ')} sections are not used: the team's config in PostgreSQL is (changed through the dashboard, the API or the CLI on any replica).`);
      }
      const config = this.parse(row.shared);
      this.revision = row.revision;
      return { config, paused: row.paused };
    });
  }

  edit(edit: (raw: Record<string, unknown>) => void, check?: (next: PatchbayConfig) => void): Promise<PatchbayConfig> {
    return this.enqueue(() =>
      this.transaction(async (client) => {
        const row = await this.read(client, 'FOR UPDATE');
        const raw = this.merge(row.shared);
        edit(raw);
        const next = parseConfig(raw, this.path);
        check?.(next);
        const updated = await client.query<{ revision: number }>("UPDATE gateway_config SET shared = $1, revision = nextval('gateway_config_revisions'), updated_at = now() WHERE id = 1 RETURNING revision", [
          JSON.stringify(sharedPart(raw)),
        ]);
        await client.query('SELECT pg_notify($1, $2)', [CONFIG_CHANNEL, String(updated.rows[0].revision)]);
        return { next, revision: updated.rows[0].revision };
      }).then(
        ({ next, revision }) => {
          this.revision = revision;
          return next;
        },
        (error: unknown) => {
          throw databaseUnavailable(error, 'Cannot save the config change (no replica applied it)');
        },
      ),
    );
  }

  setPaused(paused: boolean): Promise<void> {
    return this.enqueue(async () => {
      // One statement, one transaction: the NOTIFY goes out as the pause commits.
      const result = await this.pool.query<{ revision: number }>(
        `WITH changed AS (UPDATE gateway_config SET paused = $1, revision = nextval('gateway_config_revisions'), updated_at = now() WHERE id = 1 RETURNING revision)
         SELECT revision, pg_notify($2, revision::text) FROM changed`,
        [paused, CONFIG_CHANNEL],
      ).catch((error: unknown) => {
        throw databaseUnavailable(error, `Cannot ${paused ? 'pause' : 'resume'} the team's replicas`);
      });
      this.revision = result.rows[0].revision;
    });
  }

  /** Applies the row if another replica moved it past what this one has. */
  private async reload(): Promise<void> {
    if (this.revision < 0) return;
    const row = await this.read(this.pool);
    if (row.revision <= this.revision) return;
    this.revision = row.revision;
    let config: PatchbayConfig;
    try {
      config = this.parse(row.shared);
    } catch (error) {
      // Only this replica's own sections can make a shared change invalid here (another replica accepted it).
      this.log(`The team's config revision ${row.revision} does not validate with this replica's config.json; keeping the previous one. ${(error as Error).message}`);
      return;
    }
    this.onChange?.({ config, paused: row.paused });
  }

  private async read(client: pg.Pool | pg.PoolClient, lock = ''): Promise<ConfigRow> {
    const row = (await client.query<ConfigRow>(`SELECT revision, shared, paused FROM gateway_config WHERE id = 1 ${lock}`)).rows[0];
    if (!row) throw new Error('The team config row is missing from PostgreSQL (gateway_config); restart a replica to seed it again.');
    return row;
  }

  /** This replica's file with the shared sections replaced by the database's. */
  private merge(shared: string): Record<string, unknown> {
    const raw: Record<string, unknown> = structuredClone(this.fileRaw);
    const stored = JSON.parse(shared) as Record<string, unknown>;
    const fileProviders = isObject(this.fileRaw.providers) ? this.fileRaw.providers : {};
    for (const name of SHARED_SECTIONS) {
      if (name in stored) raw[name] = stored[name];
      else delete raw[name];
    }
    // Each provider's headers stay this replica's own (from its file).
    if (isObject(raw.providers)) {
      for (const [name, provider] of Object.entries(raw.providers)) {
        const own = fileProviders[name];
        if (isObject(provider) && isObject(own) && own.headers !== undefined) provider.headers = structuredClone(own.headers);
      }
    }
    return raw;
  }

  private parse(shared: string): PatchbayConfig {
    return parseConfig(this.merge(shared), this.path);
  }

  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.queue;
  }
}

/** The sections the team shares, less each provider's `headers` (they may carry a credential: never stored in PostgreSQL). */
function sharedPart(raw: Record<string, unknown>): Record<string, unknown> {
  const shared: Record<string, unknown> = {};
  for (const name of SHARED_SECTIONS) if (raw[name] !== undefined) shared[name] = raw[name];
  if (isObject(shared.providers)) {
    shared.providers = Object.fromEntries(
      Object.entries(shared.providers).map(([name, provider]) => {
        if (!isObject(provider)) return [name, provider];
        const { headers: _kept, ...rest } = provider;
        return [name, rest];
      }),
    );
  }
  return shared;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

