import { PatchbayError, RateLimitError } from '../errors/patchbay-error.ts';
import type { KeyCapEvent } from '../events/event-hub.ts';
import type { ApiKeyRecord } from './key-store.ts';
import { SlidingLog } from './sliding-log.ts';
import { MemoryBudgetLedger, type BudgetLedger, type BudgetState, type Estimate, type MonthUsage, type Reservation, type ReserveResult } from './budget-ledger.ts';

const MINUTE_MS = 60_000;

export type { Estimate } from './budget-ledger.ts';
export { startOfMonth } from './budget-ledger.ts';

/** A request let through: it holds its reservation until it settles with what it really used. */
export interface Admission {
  settle(actual: Estimate): void;
}

interface RateWindow {
  /** Admissions in the last minute (requests per minute: an exact sliding log; `total` is the count). */
  requests: SlidingLog;
  /** Tokens in the last minute: a request adds its reservation, and on settle the difference to what it really used. */
  tokens: SlidingLog;
}

/** One bit per cap and threshold, so each is announced once per key and month. */
const CAP_NOTICE = { tokens80: 1, tokens100: 2, usd80: 4, usd100: 8 } as const;

/** The thresholds `used` has reached (at start-up: what was crossed before, not to be announced again). */
function reachedNotices(key: ApiKeyRecord, usedTokens: number, usedUsd: number): number {
  let bits = 0;
  const tokenCap = key.monthlyTokenCap;
  const usdCap = key.monthlyUsdCap;
  if (tokenCap !== null && usedTokens >= 0.8 * tokenCap) bits |= CAP_NOTICE.tokens80;
  if (tokenCap !== null && usedTokens >= tokenCap) bits |= CAP_NOTICE.tokens100;
  if (usdCap !== null && usedUsd >= 0.8 * usdCap) bits |= CAP_NOTICE.usd80;
  if (usdCap !== null && usedUsd >= usdCap) bits |= CAP_NOTICE.usd100;
  return bits;
}

/**
 * Per-key rate limits (requests and tokens per minute, sliding windows in this process) and monthly
 * caps (a BudgetLedger: in memory for SQLite, in the database for PostgreSQL's replicas).
 * Rate admission is one synchronous step on Node's single thread, so concurrent requests cannot
 * both take the last slot: 50 parallel requests against a limit of 10 let exactly 10 through.
 *
 * Caps: a request is admitted only if used + reserved (in flight) + its own estimate stays within
 * the cap. The estimate is the prompt's byte count (an upper bound on its tokens) plus max_tokens
 * (or 256 when unset). So a cap is overrun only by requests without max_tokens that generate
 * more than 256 tokens: at most the excess of the requests in flight at that moment.
 */
export class KeyLimiter {
  private readonly rates = new Map<string, RateWindow>();
  /** Cap thresholds already announced, per key and month (CAP_NOTICE bits). */
  private readonly notices = new Map<string, { monthStart: number; bits: number }>();
  private readonly clock: () => number;
  private readonly ledger: BudgetLedger;
  /** Told once per key, cap, threshold (80 %, 100 %) and month (the dashboard's live `key_cap` event). */
  onCap: ((event: KeyCapEvent) => void) | null = null;

  /** `caps`: a ledger, or how to read a key's settled usage of a month (then the caps are kept in memory). */
  constructor(caps: BudgetLedger | MonthUsage, clock: () => number = Date.now) {
    this.ledger = typeof caps === 'function' ? new MemoryBudgetLedger(caps) : caps;
    this.clock = clock;
  }

  private rateWindow(key: ApiKeyRecord, now: number): RateWindow {
    let window = this.rates.get(key.id);
    if (!window) {
      window = { requests: new SlidingLog(), tokens: new SlidingLog() };
      this.rates.set(key.id, window);
    }
    window.requests.expire(now - MINUTE_MS);
    window.tokens.expire(now - MINUTE_MS);
    return window;
  }

  static isLimited(key: ApiKeyRecord): boolean {
    return key.rpmLimit !== null || key.tpmLimit !== null || key.monthlyTokenCap !== null || key.monthlyUsdCap !== null;
  }

  /** The x-ratelimit-* headers as they stand, for answers that never reached admission (errors). */
  headers(key: ApiKeyRecord): Record<string, string> {
    if (key.rpmLimit === null && key.tpmLimit === null) return {};
    const now = this.clock();
    return this.headersFor(key, this.rateWindow(key, now), now);
  }

  /**
   * Admits the request (writing its x-ratelimit-* headers into `headers`) or throws a 429 that says
   * which limit and when to retry. Synchronous unless the ledger must ask the database (a capped
   * key on PostgreSQL, or the first request of a capped key's month on SQLite).
   */
  admit(key: ApiKeyRecord, estimate: Estimate, headers: Record<string, string> = {}): Admission | Promise<Admission> {
    const now = this.clock();
    if (key.monthlyTokenCap === null && key.monthlyUsdCap === null) return this.admitRate(key, estimate, headers, now, null);
    const reserved = this.ledger.reserve(key, estimate, now);
    if (reserved instanceof Promise) {
      return reserved.then(
        (result) => this.afterReserve(key, estimate, headers, this.clock(), result),
        (error: Error) => {
          // The caps cannot be checked (PostgreSQL is away): a capped key fails closed, with a retryable 503.
          throw new PatchbayError(`This key's monthly cap cannot be checked right now (the database is unreachable: ${error.message}); retry in a few seconds.`, {
            status: 503,
            type: 'server_error',
            code: 'cap_unavailable',
          });
        },
      );
    }
    return this.afterReserve(key, estimate, headers, now, reserved);
  }

  private afterReserve(key: ApiKeyRecord, estimate: Estimate, headers: Record<string, string>, now: number, result: ReserveResult): Admission {
    const { state } = result;
    this.initNotices(key, state);
    if (!result.ok) {
      // The cap stops requests before usage reaches it, so the first refusal is when the key hits it.
      const reached = reachedNotices(key, state.usedTokens, state.usedUsd);
      if (result.cap === 'tokens') {
        this.announce(key, state, CAP_NOTICE.tokens100 | reached);
        throw new RateLimitError(
          `This key has reached its monthly token cap of ${key.monthlyTokenCap} tokens (${state.usedTokens} used this month${state.reservedTokens ? `, ${state.reservedTokens} reserved by requests in flight` : ''}; this request needs up to ${estimate.tokens}). Raise the cap or wait for next month.`,
          'insufficient_quota',
        );
      }
      this.announce(key, state, CAP_NOTICE.usd100 | reached);
      throw new RateLimitError(
        `This key has reached its monthly spend cap of $${key.monthlyUsdCap} ($${state.usedUsd.toFixed(4)} used this month; this request may cost up to $${estimate.costUsd.toFixed(4)}). Raise the cap or wait for next month.`,
        'insufficient_quota',
      );
    }
    try {
      return this.admitRate(key, estimate, headers, now, result.reservation);
    } catch (error) {
      result.reservation.release();
      throw error;
    }
  }

  private admitRate(key: ApiKeyRecord, estimate: Estimate, headers: Record<string, string>, now: number, reservation: Reservation | null): Admission {
    if (key.rpmLimit === null && key.tpmLimit === null) {
      if (reservation === null) return NOTHING_HELD;
      let settled = false;
      return {
        settle: (actual: Estimate) => {
          if (settled) return;
          settled = true;
          reservation.settle(actual, this.onCap === null ? undefined : (state) => this.announce(key, state, reachedNotices(key, state.usedTokens, state.usedUsd)));
        },
      };
    }
    const window = this.rateWindow(key, now);
    if (key.rpmLimit !== null && window.requests.total >= key.rpmLimit) {
      const retry = (window.requests.oldest()! + MINUTE_MS - now) / 1000;
      throw new RateLimitError(`Rate limit reached for this key: ${key.rpmLimit} requests per minute. Retry in ${retry.toFixed(1)}s.`, 'rate_limit_exceeded', retry, this.headersFor(key, window, now));
    }
    if (key.tpmLimit !== null) {
      const used = window.tokens.total;
      if (estimate.tokens > key.tpmLimit) {
        throw new RateLimitError(`This request may use up to ${estimate.tokens} tokens, more than this key's limit of ${key.tpmLimit} tokens per minute. Lower max_tokens or raise the limit.`, 'rate_limit_exceeded', undefined, this.headersFor(key, window, now));
      }
      if (used + estimate.tokens > key.tpmLimit) {
        const retry = (window.tokens.oldest()! + MINUTE_MS - now) / 1000;
        throw new RateLimitError(`Rate limit reached for this key: ${key.tpmLimit} tokens per minute (${used} used). Retry in ${retry.toFixed(1)}s.`, 'rate_limit_exceeded', retry, this.headersFor(key, window, now));
      }
    }
    if (key.rpmLimit !== null) window.requests.push(now, 1);
    const tokenEntry = key.tpmLimit !== null ? window.tokens.push(now, estimate.tokens) : -1;
    this.headersFor(key, window, now, headers);
    let settled = false;
    return {
      settle: (actual: Estimate) => {
        if (settled) return;
        settled = true;
        if (tokenEntry >= 0) window.tokens.adjust(tokenEntry, actual.tokens - estimate.tokens);
        reservation?.settle(actual, this.onCap === null ? undefined : (state) => this.announce(key, state, reachedNotices(key, state.usedTokens, state.usedUsd)));
      },
    };
  }

  /** At a key's first sight in a month: the thresholds its usage had crossed already are not news. */
  private initNotices(key: ApiKeyRecord, state: BudgetState): void {
    const known = this.notices.get(key.id);
    if (known && known.monthStart === state.monthStart) return;
    this.notices.set(key.id, { monthStart: state.monthStart, bits: reachedNotices(key, state.usedTokens, state.usedUsd) });
  }

  /** Announces the thresholds in `reached` not yet announced this month, 80 % before 100 %. */
  private announce(key: ApiKeyRecord, state: BudgetState, reached: number): void {
    this.initNotices(key, state);
    const notices = this.notices.get(key.id)!;
    const fresh = reached & ~notices.bits;
    if (fresh === 0) return;
    notices.bits |= fresh;
    if (this.onCap === null) return;
    const month = new Date(state.monthStart).toISOString().slice(0, 7);
    const all: [number, KeyCapEvent['cap'], KeyCapEvent['threshold'], number, number | null][] = [
      [CAP_NOTICE.tokens80, 'tokens', 80, state.usedTokens, key.monthlyTokenCap],
      [CAP_NOTICE.tokens100, 'tokens', 100, state.usedTokens, key.monthlyTokenCap],
      [CAP_NOTICE.usd80, 'usd', 80, state.usedUsd, key.monthlyUsdCap],
      [CAP_NOTICE.usd100, 'usd', 100, state.usedUsd, key.monthlyUsdCap],
    ];
    for (const [bit, cap, threshold, used, limit] of all) {
      if (fresh & bit && limit !== null) this.onCap({ key_id: key.id, key_name: key.name, cap, threshold, used, limit, month });
    }
  }

  private headersFor(key: ApiKeyRecord, window: RateWindow, now: number, headers: Record<string, string> = {}): Record<string, string> {
    if (key.rpmLimit !== null) {
      const oldest = window.requests.oldest();
      headers['x-ratelimit-limit-requests'] = String(key.rpmLimit);
      headers['x-ratelimit-remaining-requests'] = String(Math.max(0, key.rpmLimit - window.requests.total));
      headers['x-ratelimit-reset-requests'] = formatDuration(oldest === undefined ? 0 : oldest + MINUTE_MS - now);
    }
    if (key.tpmLimit !== null) {
      const oldest = window.tokens.oldest();
      headers['x-ratelimit-limit-tokens'] = String(key.tpmLimit);
      headers['x-ratelimit-remaining-tokens'] = String(Math.max(0, key.tpmLimit - window.tokens.total));
      headers['x-ratelimit-reset-tokens'] = formatDuration(oldest === undefined ? 0 : oldest + MINUTE_MS - now);
    }
    return headers;
  }
}

/** OpenAI writes reset times as Go durations: "12ms", "1.5s", "1m0s". */
export function formatDuration(ms: number): string {
  if (ms <= 0) return '0s';
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  const seconds = ms / 1000;
  // Millisecond precision, without trailing zeros ("1.5s"); cheaper than Number(toFixed(3)).
  if (seconds < 60) return `${Math.round(ms) / 1000}s`;
  return `${Math.floor(seconds / 60)}m${Math.round(seconds % 60)}s`;
}

const NOTHING_HELD: Admission = { settle: () => undefined };
