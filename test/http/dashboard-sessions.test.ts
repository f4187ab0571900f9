import { describe, expect, it } from 'vitest';
import { DashboardSessions, readSessionCookies } from '../../core/http/dashboard-sessions.ts';
import { PatchbayError } from '../../core/errors/patchbay-error.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function clock(start = Date.UTC(2026, 10, 1)) {
  const c = { t: start, now: () => c.t };
  return c;
}

/** Whether a session is live, checked with both its halves as the dashboard page sends them. */
const live = (sessions: DashboardSessions, s: { id: string; token: string }) => sessions.check(s.id, s.token);

/** The error a redemption throws, as the HTTP layer would render it. */
function refusal(sessions: DashboardSessions, code: unknown): PatchbayError {
  try {
    sessions.redeemCode(code);
  } catch (error) {
    return error as PatchbayError;
  }
  throw new Error('the code was accepted');
}

describe('dashboard sign-in codes and sessions', () => {
  it('makes codes and session ids of at least 128 random bits, all different', () => {
    const sessions = new DashboardSessions({ maxCodes: 100 });
    const codes = Array.from({ length: 50 }, () => sessions.createCode().code);
    expect(new Set(codes).size).toBe(50);
    for (const code of codes) expect(Buffer.from(code, 'base64url').length).toBeGreaterThanOrEqual(16);
    const session = sessions.redeemCode(codes[0]);
    expect(Buffer.from(session.id, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(Buffer.from(session.token, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(session.token).not.toBe(session.id);
    expect(live(sessions, session)).toBe(true);
  });

  it('accepts a code once', () => {
    const sessions = new DashboardSessions();
    const { code } = sessions.createCode();
    sessions.redeemCode(code);
    expect(refusal(sessions, code)).toMatchObject({ status: 401, code: 'invalid_sign_in_code' });
    expect(refusal(sessions, code).message).toMatch(/patchbay ui/);
  });

  it('expires a code after 10 minutes', () => {
    const c = clock();
    const sessions = new DashboardSessions({ now: c.now });
    const early = sessions.createCode();
    const late = sessions.createCode();
    expect(late.expiresAt - c.t).toBe(10 * MINUTE);
    c.t += 10 * MINUTE - 1;
    sessions.redeemCode(early.code);
    c.t += 1;
    expect(refusal(sessions, late.code)).toMatchObject({ status: 401, code: 'invalid_sign_in_code' });
  });

  it('keeps at most five codes outstanding: a sixth replaces the oldest', () => {
    const sessions = new DashboardSessions();
    const codes = Array.from({ length: 6 }, () => sessions.createCode().code);
    expect(refusal(sessions, codes[0]).status).toBe(401);
    for (const code of codes.slice(1)) expect(typeof sessions.redeemCode(code).token).toBe('string');
  });

  it('ends a session after 12 h idle or 7 days in all, and on sign-out', () => {
    const c = clock();
    const sessions = new DashboardSessions({ now: c.now });
    const idle = sessions.redeemCode(sessions.createCode().code);
    const busy = sessions.redeemCode(sessions.createCode().code);
    const out = sessions.redeemCode(sessions.createCode().code);
    sessions.end(out.id);
    expect(live(sessions, out)).toBe(false);
    c.t += 11 * HOUR;
    expect(live(sessions, busy)).toBe(true);
    c.t += 1 * HOUR;
    expect(live(sessions, idle)).toBe(false);
    // Used every 11 hours it stays signed in, but never beyond 7 days.
    const start = Date.UTC(2026, 10, 1);
    while (c.t + 10 * HOUR < start + 7 * 24 * HOUR) {
      c.t += 10 * HOUR;
      expect(live(sessions, busy)).toBe(true);
    }
    c.t = start + 7 * 24 * HOUR;
    expect(live(sessions, busy)).toBe(false);
  });

  it('after 20 failed attempts in a minute from one source refuses its wrong codes for a minute; other sources and valid codes are never kept out', () => {
    const c = clock();
    const sessions = new DashboardSessions({ now: c.now });
    const guesser = {};
    const user = {};
    const refusedFrom = (code: string, source: object) => {
      try {
        sessions.redeemCode(code, source);
      } catch (error) {
        return error as PatchbayError;
      }
      throw new Error('the code was accepted');
    };
    for (let i = 0; i < 20; i++) expect(refusedFrom(`guess-${i}`, guesser).status).toBe(401);
    const throttled = refusedFrom('guess-20', guesser);
    expect(throttled).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect(throttled.headers?.['retry-after']).toBe('60');
    // Another source's typo is an ordinary 401, and valid codes work from both.
    expect(refusedFrom('typo', user).status).toBe(401);
    expect(live(sessions, sessions.redeemCode(sessions.createCode().code, user))).toBe(true);
    expect(live(sessions, sessions.redeemCode(sessions.createCode().code, guesser))).toBe(true);
    c.t += MINUTE;
    expect(refusedFrom('guess-21', guesser).status).toBe(401);
  });

  it('does not lock out failures spread over more than a minute', () => {
    const c = clock();
    const sessions = new DashboardSessions({ now: c.now });
    for (let i = 0; i < 40; i++) {
      expect(refusal(sessions, `typo-${i}`).status).toBe(401);
      c.t += 4_000;
    }
    expect(live(sessions, sessions.redeemCode(sessions.createCode().code))).toBe(true);
  });

  it('needs both halves: the cookie alone, the page token alone or halves of two sessions open nothing', () => {
    const sessions = new DashboardSessions();
    const a = sessions.redeemCode(sessions.createCode().code);
    const b = sessions.redeemCode(sessions.createCode().code);
    expect(sessions.check(a.id, undefined)).toBe(false);
    expect(sessions.check(a.id, '')).toBe(false);
    expect(sessions.check(a.token, a.token)).toBe(false);
    expect(sessions.check(a.id, b.token)).toBe(false);
    expect(sessions.check(a.id, a.id)).toBe(false);
    expect(live(sessions, a) && live(sessions, b)).toBe(true);
  });

  it('reads every patchbay_session cookie of a Cookie header', () => {
    expect(readSessionCookies('a=1; patchbay_session=abc; patchbay_session_x=2; patchbay_session=def')).toEqual(['abc', 'def']);
    expect(readSessionCookies(undefined)).toEqual([]);
  });
});
