import { createHash, randomBytes } from 'node:crypto';
import type { PatchbayDatabase } from '../sqlite/open-database.ts';

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

/** What a key may do; null means no limit. */
export interface KeySettings {
  expiresAt?: number | null;
  allowedModels?: string[] | null;
  monthlyTokenCap?: number | null;
  monthlyUsdCap?: number | null;
  rpmLimit?: number | null;
  tpmLimit?: number | null;
}

export type KeyCheck = { ok: true; record: ApiKeyRecord } | { ok: false; reason: 'unknown' | 'revoked' | 'expired'; record?: ApiKeyRecord };

const SECRET_PREFIX = 'pb-';
const EXTERNAL_CHANGE_CHECK_MS = 100;
/** While requests keep coming, the check runs this often on a timer, so it is due on a request only after a pause. */
const BACKGROUND_CHECK_MS = 80;
/** Timer ticks without a request before the timer stops (about a second): an idle server does not wake for it. */
const BACKGROUND_IDLE_TICKS = 12;

export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64url');
}

/** sha256 is right for 192-bit random secrets: no dictionary to guess from, and it is fast on every request. */
/**
 * A key check against the in-memory cache both key stores keep: hash once per secret (a bounded
 * memo, as the same few secrets arrive on every request), look the hash up, then revoked and expired.
 */
export function checkKey(secret: string, byHash: ReadonlyMap<string, ApiKeyRecord>, hashes: Map<string, string>, clock: () => number): KeyCheck {
  let hash = hashes.get(secret);
  if (hash === undefined) {
    hash = hashSecret(secret);
    if (hashes.size >= 1000) hashes.clear();
    hashes.set(secret, hash);
  }
  const record = byHash.get(hash);
  if (!record) return { ok: false, reason: 'unknown' };
  if (record.revokedAt !== null) return { ok: false, reason: 'revoked', record };
  if (record.expiresAt !== null && record.expiresAt <= clock()) return { ok: false, reason: 'expired', record };
  return { ok: true, record };
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export interface KeyRow {
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

export function toRecord(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    hint: row.secret_hint,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    expiresAt: row.expires_at,
    allowedModels: row.allowed_models ? (JSON.parse(row.allowed_models) as string[] | null) : null,
    monthlyTokenCap: row.monthly_token_cap,
    monthlyUsdCap: row.monthly_usd_cap,
    rpmLimit: row.rpm_limit,
    tpmLimit: row.tpm_limit,
  };
}

/**
 * Patchbay's own API keys, stored only as hashes. Lookups on the request path hit an in-memory
 * map; the map is rebuilt when the keys table's change counter (kept by triggers) moved, that is
 * when another connection (the CLI) changed a key.
 */
export class KeyStore {
  private readonly db: PatchbayDatabase;
  private readonly clock: () => number;
  private byHash = new Map<string, ApiKeyRecord>();
  /** Presented secret -> its hash, so a key in use is hashed once, not on every request. */
  private readonly hashes = new Map<string, string>();
  private seenKeyVersion = -1;
  private checkedAt = -Infinity;
  /** Whether a key was checked since the background timer's last tick. */
  private used = false;
  private background: NodeJS.Timeout | null = null;
  private readonly keyVersion;
  private readonly selectAll;

  constructor(db: PatchbayDatabase, clock: () => number = Date.now) {
    this.db = db;
    this.clock = clock;
    this.keyVersion = db.prepare('SELECT version FROM key_changes').pluck();
    this.selectAll = db.prepare('SELECT *, secret_hash FROM api_keys');
  }

  create(options: { name: string } & KeySettings): CreatedKey {
    const secret = newSecret();
    const id = 'key_' + randomBytes(6).toString('hex');
    this.db
      .prepare(
        `INSERT INTO api_keys (id, name, secret_hash, secret_hint, created_at, expires_at, allowed_models,
           monthly_token_cap, monthly_usd_cap, rpm_limit, tpm_limit)
         VALUES (@id, @name, @hash, @hint, @now, @expiresAt, @allowedModels, @monthlyTokenCap, @monthlyUsdCap, @rpmLimit, @tpmLimit)`,
      )
      .run({
        id,
        name: options.name,
        hash: hashSecret(secret),
        hint: secret.slice(0, 7),
        now: this.clock(),
        expiresAt: options.expiresAt ?? null,
        allowedModels: options.allowedModels ? JSON.stringify(options.allowedModels) : null,
        monthlyTokenCap: options.monthlyTokenCap ?? null,
        monthlyUsdCap: options.monthlyUsdCap ?? null,
        rpmLimit: options.rpmLimit ?? null,
        tpmLimit: options.tpmLimit ?? null,
      });
    this.invalidate();
    return { record: this.get(id)!, secret };
  }

  /** Changes a key's settings; a field left undefined keeps its value, null clears it. */
  update(id: string, settings: KeySettings & { name?: string }): ApiKeyRecord | undefined {
    const current = this.get(id);
    if (!current) return undefined;
    const pick = <T>(next: T | undefined, now: T) => (next === undefined ? now : next);
    this.db
      .prepare(
        `UPDATE api_keys SET name = @name, expires_at = @expiresAt, allowed_models = @allowedModels, monthly_token_cap = @monthlyTokenCap,
           monthly_usd_cap = @monthlyUsdCap, rpm_limit = @rpmLimit, tpm_limit = @tpmLimit WHERE id = @id`,
      )
      .run({
        id,
        name: pick(settings.name, current.name),
        expiresAt: pick(settings.expiresAt, current.expiresAt),
        allowedModels: JSON.stringify(pick(settings.allowedModels, current.allowedModels)),
        monthlyTokenCap: pick(settings.monthlyTokenCap, current.monthlyTokenCap),
        monthlyUsdCap: pick(settings.monthlyUsdCap, current.monthlyUsdCap),
        rpmLimit: pick(settings.rpmLimit, current.rpmLimit),
        tpmLimit: pick(settings.tpmLimit, current.tpmLimit),
      });
    this.invalidate();
    return this.get(id);
  }

  /** A new secret for the same key record and settings; the old secret stops working at once. */
  rotate(id: string): CreatedKey | undefined {
    const current = this.get(id);
    if (!current || current.revokedAt !== null) return undefined;
    const secret = newSecret();
    this.db.prepare('UPDATE api_keys SET secret_hash = ?, secret_hint = ?, rotated_at = ? WHERE id = ?').run(hashSecret(secret), secret.slice(0, 7), this.clock(), id);
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
    this.used = true;
    this.refreshIfChanged();
    return checkKey(secret, this.byHash, this.hashes, this.clock);
  }

  private invalidate(): void {
    this.seenKeyVersion = -1;
    this.checkedAt = -Infinity;
  }

  /**
   * Changes made through this store apply at once; changes another process (the CLI without a
   * running server) commits are noticed within EXTERNAL_CHANGE_CHECK_MS. The check is a read of
   * the database (~0.1-0.4 ms after the usage writer committed, as it has after every request):
   * while requests keep coming it runs on a timer between them (keepChecking), so a request that
   * arrives more than the window after the last one (every streamed answer is longer) does not
   * wait for it; a request after a pause still checks first.
   */
  private refreshIfChanged(): void {
    const now = performance.now();
    if (now - this.checkedAt < EXTERNAL_CHANGE_CHECK_MS) return;
    this.refresh(now);
    this.keepChecking();
  }

  private refresh(now: number): void {
    this.checkedAt = now;
    const version = this.keyVersion.get() as number;
    if (version === this.seenKeyVersion) return;
    const next = new Map<string, ApiKeyRecord>();
    for (const row of this.selectAll.all() as (KeyRow & { secret_hash: string })[]) next.set(row.secret_hash, toRecord(row));
    this.byHash = next;
    this.seenKeyVersion = version;
  }

  /** Checks every BACKGROUND_CHECK_MS until BACKGROUND_IDLE_TICKS pass without a request (unref'd: it never keeps the process alive). */
  private keepChecking(): void {
    if (this.background) return;
    let idleTicks = 0;
    const timer = setInterval(() => {
      if (this.used) idleTicks = 0;
      else if (++idleTicks > BACKGROUND_IDLE_TICKS) return this.stopChecking();
      this.used = false;
      try {
        this.refresh(performance.now());
      } catch {
        // The database is closed (shutdown, a test's teardown): the next request checks for itself.
        this.stopChecking();
      }
    }, BACKGROUND_CHECK_MS);
    timer.unref();
    this.background = timer;
  }

  private stopChecking(): void {
    if (this.background) clearInterval(this.background);
    this.background = null;
  }
}
