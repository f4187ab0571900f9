import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { PostgresListener } from './postgres-listener.ts';
import type { KeyBackend } from '../keys/key-backend.ts';
import { checkKey, hashSecret, newSecret, toRecord, type ApiKeyRecord, type CreatedKey, type KeyCheck, type KeyRow, type KeySettings } from '../keys/key-store.ts';

/** The channel every replica listens on; the payload is the changed key's id. */
export const KEYS_CHANNEL = 'patchbay_keys';
/** Each write of a key takes the next number of a sequence: writes of one row are serialised by its lock, so a later write has a higher version. */
const ROW_VERSION = 'version AS row_version';
const NEXT_VERSION = "version = nextval('api_key_versions')";

type StoredKey = KeyRow & { secret_hash: string; row_version: number };

/**
 * Keys in PostgreSQL, checked on the request path against an in-memory map of every key (no
 * round trip per request). Every write commits with a NOTIFY on KEYS_CHANNEL in its transaction;
 * each replica holds a LISTEN connection and reloads the key named in the payload as the
 * notification arrives (PostgreSQL delivers it at commit). So a revocation is honoured by every
 * replica within the notification's delivery time after the commit, measured by
 * test/integration/postgres-replicas.test.ts. While the LISTEN connection is down (PostgreSQL
 * restarting), this replica keeps answering from its map, so /v1 keeps serving; it reconnects every
 * 500 ms and then reloads every key, so a change committed meanwhile through another replica
 * applies here once the connection is back.
 */
export class PostgresKeyStore implements KeyBackend {
  private readonly pool: pg.Pool;
  private byHash = new Map<string, ApiKeyRecord>();
  private byId = new Map<string, ApiKeyRecord & { hash: string; version: number }>();
  private readonly hashes = new Map<string, string>();
  private listener: PostgresListener | null = null;
  private readonly clock: () => number;

  private constructor(pool: pg.Pool, clock: () => number) {
    this.pool = pool;
    this.clock = clock;
  }

  static async open(pool: pg.Pool, connectionString: string, log: (message: string) => void, options: { replica?: string; clock?: () => number } = {}): Promise<PostgresKeyStore> {
    const store = new PostgresKeyStore(pool, options.clock ?? Date.now);
    store.listener = new PostgresListener(connectionString, log, {
      name: options.replica ? `patchbay keys ${options.replica}` : 'patchbay keys',
      lost: (reason) => `Lost the key-change connection to PostgreSQL${reason}; answering from the keys known until it is back.`,
      back: 'The key-change connection to PostgreSQL is back; keys reloaded.',
    });
    store.listener.add(KEYS_CHANNEL, {
      notify: (payload) => {
        if (payload) void store.reloadOne(payload).catch(() => undefined);
      },
      // Listening first, then loading: a change committed in between is both loaded and notified.
      connected: () => store.reloadAll(),
    });
    await store.listener.start();
    return store;
  }

  private async reloadAll(): Promise<void> {
    const rows = (await this.pool.query<StoredKey>(`SELECT *, ${ROW_VERSION} FROM api_keys`)).rows;
    const byHash = new Map<string, ApiKeyRecord>();
    const byId = new Map<string, ApiKeyRecord & { hash: string; version: number }>();
    for (const row of rows) {
      const record = toRecord(row);
      byHash.set(row.secret_hash, record);
      byId.set(row.id, { ...record, hash: row.secret_hash, version: row.row_version });
    }
    this.byHash = byHash;
    this.byId = byId;
  }

  private async reloadOne(id: string): Promise<ApiKeyRecord | undefined> {
    const row = (await this.pool.query<StoredKey>(`SELECT *, ${ROW_VERSION} FROM api_keys WHERE id = $1`, [id])).rows[0];
    this.apply(id, row);
    return row ? toRecord(row) : undefined;
  }

  /**
   * Puts a key's row (or its absence) into the maps, unless the map already holds a newer version:
   * reloads run concurrently, and one that read before a later write may finish after it.
   */
  private apply(id: string, row: StoredKey | undefined): void {
    const old = this.byId.get(id);
    if (old && row && row.row_version < old.version) return;
    if (old) this.byHash.delete(old.hash);
    if (!row) {
      this.byId.delete(id);
      return;
    }
    const record = toRecord(row);
    this.byHash.set(row.secret_hash, record);
    this.byId.set(id, { ...record, hash: row.secret_hash, version: row.row_version });
  }

  check(secret: string): KeyCheck {
    return checkKey(secret, this.byHash, this.hashes, this.clock);
  }

  nameOf(id: string): string | null {
    return this.byId.get(id)?.name ?? null;
  }

  /** Runs a write and its NOTIFY in one transaction; returns the key's row after it. `onlyIfNone`: only when the table is empty (under a lock). */
  private async write(id: string, sql: string, values: unknown[], onlyIfNone = false): Promise<StoredKey | undefined> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      if (onlyIfNone) {
        await client.query('LOCK TABLE api_keys IN SHARE ROW EXCLUSIVE MODE');
        if ((await client.query<{ n: number }>('SELECT count(*) AS n FROM api_keys')).rows[0].n > 0) {
          await client.query('ROLLBACK');
          return undefined;
        }
      }
      const result = await client.query<StoredKey>(sql, values);
      if (result.rowCount) await client.query('SELECT pg_notify($1, $2)', [KEYS_CHANNEL, id]);
      await client.query('COMMIT');
      const row = result.rows[0];
      if (row) this.apply(id, row);
      return row;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async create(options: { name: string } & KeySettings): Promise<CreatedKey> {
    return (await this.insert(options, false))!;
  }

  async createIfNone(options: { name: string } & KeySettings): Promise<CreatedKey | null> {
    return (await this.insert(options, true)) ?? null;
  }

  private async insert(options: { name: string } & KeySettings, onlyIfNone: boolean): Promise<CreatedKey | undefined> {
    const secret = newSecret();
    const id = 'key_' + randomBytes(6).toString('hex');
    const row = await this.write(
      id,
      `INSERT INTO api_keys (id, name, secret_hash, secret_hint, created_at, expires_at, allowed_models, monthly_token_cap, monthly_usd_cap, rpm_limit, tpm_limit)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *, ${ROW_VERSION}`,
      [
        id, options.name, hashSecret(secret), secret.slice(0, 7), this.clock(), options.expiresAt ?? null,
        options.allowedModels ? JSON.stringify(options.allowedModels) : null, options.monthlyTokenCap ?? null, options.monthlyUsdCap ?? null,
        options.rpmLimit ?? null, options.tpmLimit ?? null,
      ],
      onlyIfNone,
    );
    return row ? { record: toRecord(row), secret } : undefined;
  }

  async update(id: string, settings: KeySettings & { name?: string }): Promise<ApiKeyRecord | undefined> {
    const current = await this.get(id);
    if (!current) return undefined;
    const pick = <T>(next: T | undefined, now: T) => (next === undefined ? now : next);
    const row = await this.write(
      id,
      `UPDATE api_keys SET ${NEXT_VERSION}, name = $2, expires_at = $3, allowed_models = $4, monthly_token_cap = $5, monthly_usd_cap = $6, rpm_limit = $7, tpm_limit = $8
        WHERE id = $1 RETURNING *, ${ROW_VERSION}`,
      [
        id, pick(settings.name, current.name), pick(settings.expiresAt, current.expiresAt), JSON.stringify(pick(settings.allowedModels, current.allowedModels)),
        pick(settings.monthlyTokenCap, current.monthlyTokenCap), pick(settings.monthlyUsdCap, current.monthlyUsdCap),
        pick(settings.rpmLimit, current.rpmLimit), pick(settings.tpmLimit, current.tpmLimit),
      ],
    );
    return row ? toRecord(row) : undefined;
  }

  async rotate(id: string): Promise<CreatedKey | undefined> {
    const secret = newSecret();
    const row = await this.write(id, `UPDATE api_keys SET ${NEXT_VERSION}, secret_hash = $2, secret_hint = $3, rotated_at = $4 WHERE id = $1 AND revoked_at IS NULL RETURNING *, ${ROW_VERSION}`, [
      id, hashSecret(secret), secret.slice(0, 7), this.clock(),
    ]);
    return row ? { record: toRecord(row), secret } : undefined;
  }

  async revoke(id: string): Promise<boolean> {
    const row = await this.write(id, `UPDATE api_keys SET ${NEXT_VERSION}, revoked_at = coalesce(revoked_at, $2) WHERE id = $1 RETURNING *, ${ROW_VERSION}`, [id, this.clock()]);
    return row !== undefined;
  }

  async list(): Promise<ApiKeyRecord[]> {
    return (await this.pool.query<KeyRow>('SELECT * FROM api_keys ORDER BY created_at, id')).rows.map(toRecord);
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    const row = (await this.pool.query<KeyRow>('SELECT * FROM api_keys WHERE id = $1', [id])).rows[0];
    return row ? toRecord(row) : undefined;
  }

  async count(): Promise<number> {
    return (await this.pool.query<{ n: number }>('SELECT count(*) AS n FROM api_keys')).rows[0].n;
  }

  async close(): Promise<void> {
    await this.listener?.close();
  }
}
