import { createHash } from 'node:crypto';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export interface DashboardSessionOptions {
  /** The clock (ms since the epoch); tests pass their own to expire codes and sessions. */
  now?: () => number;
  codeTtlMs?: number;
  /** Codes kept at once; a new one beyond this replaces the oldest. */
  maxCodes?: number;
  sessionIdleMs?: number;
  sessionMaxAgeMs?: number;
  /** Sessions kept at once; a new one beyond this ends the oldest. */
  maxSessions?: number;
  /** Failed sign-ins from one source (a client connection) within failureWindowMs that throttle that source for lockoutMs. */
  failureLimit?: number;
  failureWindowMs?: number;
  lockoutMs?: number;
}

/** The two halves of a session: the cookie (HttpOnly) and the page's secret (X-Patchbay-Session). */
export interface SessionSecrets {
  id: string;
  token: string;
}

/**
 * The dashboard's sign-in as the HTTP layer uses it: in this process's memory (one machine,
 * DashboardSessions in core/http) or in PostgreSQL (a team's replicas, PostgresDashboardSessions),
 * with the same rules: single-use codes, two-half sessions, hashes at rest, expiry.
 */
export interface DashboardSignIn {
  readonly codeTtlMs: number;
  readonly sessionMaxAgeMs: number;
  createCode(): { code: string; expiresAt: number } | Promise<{ code: string; expiresAt: number }>;
  redeemCode(code: unknown, source?: object): SessionSecrets | Promise<SessionSecrets>;
  check(id: string, token: string | undefined): boolean | Promise<boolean>;
  end(id: string): void | Promise<void>;
}

/** The defaults both implementations use. */
export const SIGN_IN_DEFAULTS = { codeTtlMs: 10 * MINUTE, maxCodes: 5, sessionIdleMs: 12 * HOUR, sessionMaxAgeMs: 7 * 24 * HOUR, maxSessions: 50 };

/** The source of attempts whose caller names none (tests, in-process callers). */
export const GLOBAL_SOURCE = {};

/** Codes, session ids and tokens are kept as this hash only. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}
