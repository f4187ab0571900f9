import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import { databaseUnavailable } from './database-unavailable.ts';
import { GLOBAL_SOURCE, hashSecret, SIGN_IN_DEFAULTS, type DashboardSessionOptions, type DashboardSignIn, type SessionSecrets } from '../stores/dashboard-sign-in.ts';
import { SignInThrottle } from '../stores/sign-in-throttle.ts';

/** Sessions kept at once for the whole team (one machine keeps 50): the oldest beyond it ends. */
const TEAM_MAX_SESSIONS = 1_000;
/** A session's last use is written at most this often (its idle limit is hours): not one write per dashboard call. */
const TOUCH_EVERY_MS = 60_000;

interface SessionRow {
  token_hash: string;
  created_at: number;
  last_seen: number;
}

/**
 * The dashboard's sign-in codes and sessions in PostgreSQL, so a team's replicas behind one
 * address share them: a code printed by one replica signs in through any, a session made on one
 * works on every other, and signing out (or expiry) ends it on all. Same rules as
 * DashboardSessions: codes single-use (taken with DELETE ... RETURNING, so two replicas cannot both
 * accept one), two-half sessions (the cookie's id and the page's token, both needed), only SHA-256
 * hashes stored, codes expire in minutes, sessions when idle or old. Each check reads the row: the
 * management API is not the /v1 hot path, and a sign-out is then final everywhere at once.
 * Wrong-code throttling stays per connection, so per replica (a connection belongs to one).
 */
export class PostgresDashboardSessions implements DashboardSignIn {
  readonly codeTtlMs: number;
  readonly sessionMaxAgeMs: number;
  private readonly pool: pg.Pool;
  private readonly now: () => number;
  private readonly maxCodes: number;
  private readonly sessionIdleMs: number;
  private readonly maxSessions: number;
  private readonly throttle: SignInThrottle;

  constructor(pool: pg.Pool, options: DashboardSessionOptions = {}) {
    this.pool = pool;
    this.now = options.now ?? Date.now;
    this.codeTtlMs = options.codeTtlMs ?? SIGN_IN_DEFAULTS.codeTtlMs;
    this.maxCodes = options.maxCodes ?? SIGN_IN_DEFAULTS.maxCodes;
    this.sessionIdleMs = options.sessionIdleMs ?? SIGN_IN_DEFAULTS.sessionIdleMs;
    this.sessionMaxAgeMs = options.sessionMaxAgeMs ?? SIGN_IN_DEFAULTS.sessionMaxAgeMs;
    this.maxSessions = options.maxSessions ?? TEAM_MAX_SESSIONS;
    this.throttle = new SignInThrottle(options, this.codeTtlMs);
  }

  async createCode(): Promise<{ code: string; expiresAt: number }> {
    return this.guard('Cannot make a sign-in code', () => this.makeCode());
  }

  private async makeCode(): Promise<{ code: string; expiresAt: number }> {
    const now = this.now();
    const code = randomBytes(16).toString('base64url');
    const expiresAt = now + this.codeTtlMs;
    // Expired codes go, then the oldest beyond maxCodes (the new one included): at most maxCodes live at once.
    await this.pool.query(
      `WITH swept AS (DELETE FROM dashboard_codes WHERE expires_at <= $1), added AS (INSERT INTO dashboard_codes (code_hash, expires_at) VALUES ($2, $3))
       SELECT 1`,
      [now, hashSecret(code), expiresAt],
    );
    await this.pool.query('DELETE FROM dashboard_codes WHERE code_hash IN (SELECT code_hash FROM dashboard_codes ORDER BY expires_at DESC OFFSET $1)', [this.maxCodes]);
    return { code, expiresAt };
  }

  async redeemCode(code: unknown, source: object = GLOBAL_SOURCE): Promise<SessionSecrets> {
    return this.guard('Cannot sign in', () => this.redeem(code, source));
  }

  private async redeem(code: unknown, source: object): Promise<SessionSecrets> {
    const hash = typeof code === 'string' && code.length > 0 && code.length <= 256 ? hashSecret(code) : '';
    const taken = hash ? (await this.pool.query<{ expires_at: number }>('DELETE FROM dashboard_codes WHERE code_hash = $1 RETURNING expires_at', [hash])).rows[0] : undefined;
    const now = this.now();
    if (!taken || taken.expires_at <= now) throw this.throttle.refuse(source, now);
    const id = randomBytes(32).toString('base64url');
    const token = randomBytes(32).toString('base64url');
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('DELETE FROM dashboard_sessions WHERE last_seen <= $1 OR created_at <= $2', [now - this.sessionIdleMs, now - this.sessionMaxAgeMs]);
      await client.query('INSERT INTO dashboard_sessions (id_hash, token_hash, created_at, last_seen) VALUES ($1, $2, $3, $3)', [hashSecret(id), hashSecret(token), now]);
      // A new session beyond maxSessions ends the oldest.
      await client.query('DELETE FROM dashboard_sessions WHERE id_hash IN (SELECT id_hash FROM dashboard_sessions ORDER BY created_at DESC, id_hash OFFSET $1)', [this.maxSessions]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    return { id, token };
  }

  async check(id: string, token: string | undefined): Promise<boolean> {
    return this.guard('The dashboard cannot check its session', () => this.checkRow(id, token));
  }

  private async checkRow(id: string, token: string | undefined): Promise<boolean> {
    if (typeof token !== 'string' || token.length === 0 || token.length > 256 || id.length === 0 || id.length > 256) return false;
    const hash = hashSecret(id);
    const row = (await this.pool.query<SessionRow>('SELECT token_hash, created_at, last_seen FROM dashboard_sessions WHERE id_hash = $1', [hash])).rows[0];
    if (!row) return false;
    const stored = Buffer.from(row.token_hash, 'base64url');
    const presented = createHash('sha256').update(token).digest();
    if (stored.length !== presented.length || !timingSafeEqual(stored, presented)) return false;
    const now = this.now();
    if (now - row.last_seen >= this.sessionIdleMs || now - row.created_at >= this.sessionMaxAgeMs) {
      await this.pool.query('DELETE FROM dashboard_sessions WHERE id_hash = $1', [hash]);
      return false;
    }
    if (now - row.last_seen >= TOUCH_EVERY_MS) await this.pool.query('UPDATE dashboard_sessions SET last_seen = $2 WHERE id_hash = $1 AND last_seen < $2', [hash, now]);
    return true;
  }

  async end(id: string): Promise<void> {
    await this.guard('Cannot sign out', () => this.pool.query('DELETE FROM dashboard_sessions WHERE id_hash = $1', [hashSecret(id)]));
  }

  /** A database error is a 503 saying what could not be done (the dashboard is never told its session is gone when it is not). */
  private async guard<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw databaseUnavailable(error, what);
    }
  }
}
