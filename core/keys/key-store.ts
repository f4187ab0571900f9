import { createHash, randomBytes } from 'node:crypto';
import type { PatchbayDatabase } from '../usage/open-database.ts';

export interface ApiKeyRecord {
  id: string;
  name: string;
  /** The first characters of the secret, enough to recognise it in a list; never the secret. */
  hint: string;
  createdAt: number;
  revokedAt: number | null;
  expiresAt: number | null;
  allowedModels: string[] | null;
  monthlyTokenCap: number | null;
  monthlyUsdCap: number | null;
  rpmLimit: number | null;
  tpmLimit: number | null;
}

export interface CreatedKey {
  record: ApiKeyRecord;
  /** The full secret: shown to the user once, never stored. */
  secret: string;
}

export type KeyCheck = { ok: true; record: ApiKeyRecord } | { ok: false; reason: 'unknown' | 'revoked' | 'expired'; record?: ApiKeyRecord };

const SECRET_PREFIX = 'pb-';

/** sha256 is right for 192-bit random secrets: no dictionary to guess from, and it is fast on every request. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

interface KeyRow {
  id: string;
  name: string;
  secret_hint: string;
  created_at: number;
  revoked_at: number | null;
  expires_at: number | null;
  allowed_models: string | null;
  monthly_token_cap: number | null;
  monthly_usd_cap: number | null;
  rpm_limit: number | null;
  tpm_limit: number | null;
}

function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    hint: row.secret_hint,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    expiresAt: row.expires_at,
    allowedModels: row.allowed_models ? (JSON.parse(row.allowed_models) as string[]) : null,
    monthlyTokenCap: row.monthly_token_cap,
    monthlyUsdCap: row.monthly_usd_cap,
    rpmLimit: row.rpm_limit,
    tpmLimit: row.tpm_limit,
  };
}

/**
 * Patchbay's own API keys, stored only as hashes. Lookups on the request path hit an in-memory
 * map; the map is rebuilt when SQLite reports that another connection (the CLI) changed the file.
 */
export class KeyStore {
  private readonly db: PatchbayDatabase;
  private readonly clock: () => number;
  private byHash = new Map<string, ApiKeyRecord>();
  private seenDataVersion = -1;
  private readonly dataVersion;
  private readonly selectAll;

  constructor(db: PatchbayDatabase, clock: () => number = Date.now) {
    this.db = db;
    this.clock = clock;
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.selectAll = db.prepare('SELECT *, secret_hash FROM api_keys');
  }

  create(options: { name: string; expiresAt?: number | null; allowedModels?: string[] | null }): CreatedKey {
    const secret = SECRET_PREFIX + randomBytes(24).toString('base64url');
    const id = 'key_' + randomBytes(6).toString('hex');
    const now = this.clock();
    this.db
      .prepare(
        `INSERT INTO api_keys (id, name, secret_hash, secret_hint, created_at, expires_at, allowed_models)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, options.name, hashSecret(secret), secret.slice(0, 7), now, options.expiresAt ?? null, options.allowedModels ? JSON.stringify(options.allowedModels) : null);
    this.invalidate();
    return { record: this.get(id)!, secret };
  }

  list(): ApiKeyRecord[] {
    return (this.db.prepare('SELECT * FROM api_keys ORDER BY created_at').all() as KeyRow[]).map(toRecord);
  }

  get(id: string): ApiKeyRecord | undefined {
    const row = this.db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as KeyRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  count(): number {
    return this.db.prepare('SELECT count(*) FROM api_keys').pluck().get() as number;
  }

  /** Returns false when no key has that id; revoking twice is harmless. */
  revoke(id: string): boolean {
    const result = this.db.prepare('UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?').run(this.clock(), id);
    this.invalidate();
    return result.changes > 0;
  }

  /** Checks a presented secret. Called on every /v1 request. */
  check(secret: string): KeyCheck {
    this.refreshIfChanged();
    const record = this.byHash.get(hashSecret(secret));
    if (!record) return { ok: false, reason: 'unknown' };
    if (record.revokedAt !== null) return { ok: false, reason: 'revoked', record };
    if (record.expiresAt !== null && record.expiresAt <= this.clock()) return { ok: false, reason: 'expired', record };
    return { ok: true, record };
  }

  private invalidate(): void {
    this.seenDataVersion = -1;
  }

  private refreshIfChanged(): void {
    const version = this.dataVersion.get() as number;
    if (version === this.seenDataVersion) return;
    const next = new Map<string, ApiKeyRecord>();
    for (const row of this.selectAll.all() as (KeyRow & { secret_hash: string })[]) next.set(row.secret_hash, toRecord(row));
    this.byHash = next;
    this.seenDataVersion = version;
  }
}
