import { PatchbayError, RateLimitError } from '../errors/patchbay-error.ts';
import type { DashboardSessionOptions } from './dashboard-sign-in.ts';

const MINUTE = 60_000;

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
