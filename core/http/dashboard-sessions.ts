import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { GLOBAL_SOURCE, hashSecret, SIGN_IN_DEFAULTS, type DashboardSessionOptions, type DashboardSignIn, type SessionSecrets } from '../stores/dashboard-sign-in.ts';
import { SignInThrottle } from '../stores/sign-in-throttle.ts';

export const SESSION_COOKIE = 'patchbay_session';
/** The header carrying the page's half of a session (the half other local servers never see). */
export const SESSION_HEADER = 'x-patchbay-session';

interface Session {
  createdAt: number;
  lastSeen: number;
  /** SHA-256 of the page's half (sent in X-Patchbay-Session). */
  tokenHash: Buffer;
}

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
