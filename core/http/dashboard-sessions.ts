import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { PatchbayError, RateLimitError } from '../errors/patchbay-error.ts';

export const SESSION_COOKIE = 'patchbay_session';
/** The header carrying the page's half of a session (the half other local servers never see). */
export const SESSION_HEADER = 'x-patchbay-session';

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

interface Session {
  createdAt: number;
  lastSeen: number;
  /** SHA-256 of the page's half (sent in X-Patchbay-Session). */
  tokenHash: Buffer;
}

/** The two halves of a session: the cookie (HttpOnly) and the page's secret (X-Patchbay-Session). */
export interface SessionSecrets {
  id: string;
  token: string;
}

const MINUTE = 60_000;
/** The source of attempts whose caller names none (tests, in-process callers). */
const GLOBAL_SOURCE = {};
const HOUR = 60 * MINUTE;

/**
 * The dashboard's sign-in as the HTTP layer uses it: in this process's memory (one machine,
 * DashboardSessions) or in PostgreSQL (a team's replicas, PostgresDashboardSessions), with the
 * same rules: single-use codes, two-half sessions, hashes at rest, expiry.
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

/**
 * The dashboard's sign-in: one-time codes (printed by `patchbay serve` / `patchbay ui`, carried in a
 * URL fragment) exchanged for a session, so the admin token never has to reach a browser.
 *
 * A session is two secrets, both needed: a cookie, and a token the page keeps in its origin's
 * storage and sends as X-Patchbay-Session. Cookies ignore ports, so the browser hands the cookie to
 * every server on 127.0.0.1 it visits; storage is per origin (port included), so the token stays
 * with Patchbay's own page. Neither half opens /api alone.
 * Everything lives in memory, as SHA-256 hashes of the secrets: a memory dump or a log line shows no
 * usable code or session, and restarting Patchbay signs everyone out.
 */
export class DashboardSessions implements DashboardSignIn {
  readonly codeTtlMs: number;
  readonly sessionMaxAgeMs: number;
  private readonly now: () => number;
  private readonly maxCodes: number;
  private readonly sessionIdleMs: number;
  private readonly maxSessions: number;
  /** Hash of a code -> when it expires; insertion order is age order. */
  private readonly codes = new Map<string, number>();
  /** Hash of a session id -> its times; insertion order is age order. */
  private readonly sessions = new Map<string, Session>();
  private readonly throttle: SignInThrottle;

  constructor(options: DashboardSessionOptions = {}) {
    this.now = options.now ?? Date.now;
    this.codeTtlMs = options.codeTtlMs ?? SIGN_IN_DEFAULTS.codeTtlMs;
    this.maxCodes = options.maxCodes ?? SIGN_IN_DEFAULTS.maxCodes;
    this.sessionIdleMs = options.sessionIdleMs ?? SIGN_IN_DEFAULTS.sessionIdleMs;
    this.sessionMaxAgeMs = options.sessionMaxAgeMs ?? SIGN_IN_DEFAULTS.sessionMaxAgeMs;
    this.maxSessions = options.maxSessions ?? SIGN_IN_DEFAULTS.maxSessions;
    this.throttle = new SignInThrottle(options, this.codeTtlMs);
  }

  /** A fresh single-use code (128 bits). */
  createCode(): { code: string; expiresAt: number } {
    const now = this.now();
    for (const [hash, expiresAt] of this.codes) if (expiresAt <= now) this.codes.delete(hash);
    while (this.codes.size >= this.maxCodes) this.codes.delete(this.codes.keys().next().value as string);
    const code = randomBytes(16).toString('base64url');
    const expiresAt = now + this.codeTtlMs;
    this.codes.set(hashSecret(code), expiresAt);
    return { code, expiresAt };
  }

  /**
   * Exchanges a code for a new session. A valid unused code always works, from any source: nothing
   * another process does can keep the user out. A used, unknown or expired code is a 401, counted
   * against its source (the client's connection); after failureLimit of them in failureWindowMs
   * that source's wrong codes get a 429 for lockoutMs (and the HTTP layer closes the connection).
   * Guessing stays hopeless either way: a code is 128 random bits and at most maxCodes live at once.
   */
  redeemCode(code: unknown, source: object = GLOBAL_SOURCE): SessionSecrets {
    const now = this.now();
    const hash = typeof code === 'string' && code.length > 0 && code.length <= 256 ? hashSecret(code) : '';
    const expiresAt = this.codes.get(hash);
    this.codes.delete(hash);
    if (expiresAt === undefined || expiresAt <= now) throw this.throttle.refuse(source, now);
    this.pruneSessions(now);
    while (this.sessions.size >= this.maxSessions) this.sessions.delete(this.sessions.keys().next().value as string);
    const id = randomBytes(32).toString('base64url');
    const token = randomBytes(32).toString('base64url');
    this.sessions.set(hashSecret(id), { createdAt: now, lastSeen: now, tokenHash: createHash('sha256').update(token).digest() });
    return { id, token };
  }

  /** True for a live session whose two halves match (and marks it used, which keeps it from idling out). */
  check(id: string, token: string | undefined): boolean {
    if (typeof token !== 'string' || token.length === 0 || token.length > 256) return false;
    const hash = hashSecret(id);
    const session = this.sessions.get(hash);
    if (!session || !timingSafeEqual(session.tokenHash, createHash('sha256').update(token).digest())) return false;
    const now = this.now();
    if (now - session.lastSeen >= this.sessionIdleMs || now - session.createdAt >= this.sessionMaxAgeMs) {
      this.sessions.delete(hash);
      return false;
    }
    session.lastSeen = now;
    return true;
  }

  end(id: string): void {
    this.sessions.delete(hashSecret(id));
  }

  private pruneSessions(now: number): void {
    for (const [hash, s] of this.sessions) {
      if (now - s.lastSeen >= this.sessionIdleMs || now - s.createdAt >= this.sessionMaxAgeMs) this.sessions.delete(hash);
    }
  }
}

/**
 * Counts wrong sign-in codes per source (a client connection): after failureLimit of them within
 * failureWindowMs, that source's wrong codes get a 429 for lockoutMs. Kept in each process's
 * memory (a connection belongs to one process). Weak: a closed connection takes its entry along.
 */
export class SignInThrottle {
  private readonly failures = new WeakMap<object, { times: number[]; lockedUntil: number }>();
  private readonly failureLimit: number;
  private readonly failureWindowMs: number;
  private readonly lockoutMs: number;
  private readonly codeTtlMs: number;

  constructor(options: DashboardSessionOptions, codeTtlMs: number) {
    this.failureLimit = options.failureLimit ?? 20;
    this.failureWindowMs = options.failureWindowMs ?? MINUTE;
    this.lockoutMs = options.lockoutMs ?? MINUTE;
    this.codeTtlMs = codeTtlMs;
  }

  /** Counts a used, unknown or expired code against its source; returns the error to throw (401, or 429 while locked out). */
  refuse(source: object, now: number): PatchbayError {
    const record = this.failures.get(source) ?? { times: [], lockedUntil: 0 };
    this.failures.set(source, record);
    if (now < record.lockedUntil) {
      return new RateLimitError(
        `Too many wrong sign-in codes on this connection; it is refused for ${Math.ceil((record.lockedUntil - now) / 1000)} s. A valid link from "patchbay ui" still works (on a new connection).`,
        'rate_limit_exceeded',
        (record.lockedUntil - now) / 1000,
      );
    }
    record.times = record.times.filter((at) => now - at < this.failureWindowMs);
    record.times.push(now);
    if (record.times.length >= this.failureLimit) {
      record.lockedUntil = now + this.lockoutMs;
      record.times = [];
    }
    return new PatchbayError(`This sign-in code is used, unknown or expired (a code works once, for ${Math.round(this.codeTtlMs / MINUTE)} minutes). Ask for a new link with "patchbay ui".`, {
      status: 401,
      type: 'invalid_request_error',
      code: 'invalid_sign_in_code',
      param: 'code',
    });
  }
}

/** The source of attempts whose caller names none (tests, in-process callers). */
export { GLOBAL_SOURCE };

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

/** The session ids in a Cookie header (a browser may send several cookies of that name, e.g. from other paths). */
export function readSessionCookies(header: string | undefined): string[] {
  if (!header) return [];
  const ids: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === SESSION_COOKIE) ids.push(part.slice(eq + 1).trim());
  }
  return ids;
}

/**
 * HttpOnly keeps it from page scripts, SameSite=Strict from other sites' requests. No Secure flag:
 * Patchbay serves plain http on loopback, where a Secure cookie would never be sent back. Other
 * servers on this machine do receive it (cookies ignore ports): alone it opens nothing.
 */
export function sessionCookie(id: string, maxAgeMs: number): string {
  return `${SESSION_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${Math.floor(maxAgeMs / 1000)}`;
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`;
}
