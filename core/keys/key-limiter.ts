import { RateLimitError } from '../errors/patchbay-error.ts';
import type { KeyCapEvent } from '../events/event-hub.ts';
import type { ApiKeyRecord } from './key-store.ts';
import { SlidingLog } from './sliding-log.ts';

const MINUTE_MS = 60_000;

export interface Estimate {
  tokens: number;
  costUsd: number;
}

/** A request let through: it holds its reservation until it settles with what it really used. */
export interface Admission {
  settle(actual: Estimate): void;
}

interface KeyWindow {
  /** Admissions in the last minute (requests per minute: an exact sliding log; `total` is the count). */
  requests: SlidingLog;
  /** Tokens in the last minute: a request adds its reservation, and on settle the difference to what it really used. */
  tokens: SlidingLog;
  monthStart: number;
  /** Start of the next month: the window holds while now is before it (no date arithmetic per request). */
  monthEnd: number;
  usedTokens: number;
  usedUsd: number;
  reservedTokens: number;
  reservedUsd: number;
  /** Cap thresholds already announced this month (CAP_NOTICE bits). */
  capNotices: number;
  /** The last request a cap refused this month: which cap, when, and what that request needed. */
  refusal: CapRefusal | null;
}

/** A request a monthly cap refused: the Keys page shows the key as refusing, not as "77 % used". */
export interface CapRefusal {
  cap: 'tokens' | 'usd';
  at: number;
  /** The refused request's estimate (tokens, or USD). */
  needed: number;
}

/** What the Keys page shows beside a key's month usage: reservations in flight and the last refusal. */
export interface CapState {
  reservedTokens: number;
  reservedUsd: number;
  refusal: CapRefusal | null;
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
 * Per-key rate limits (requests and tokens per minute, sliding windows) and monthly caps.
 * Admission is one synchronous step on Node's single thread, so concurrent requests cannot both
 * take the last slot: 50 parallel requests against a limit of 10 let exactly 10 through.
 *
 * Caps: a request is admitted only if used + reserved (in flight) + its own estimate stays within
 * the cap. The estimate is the prompt's byte count (an upper bound on its tokens) plus max_tokens
 * (or 256 when unset). So a cap is overrun only by requests without max_tokens that generate
 * more than 256 tokens: at most the excess of the requests in flight at that moment.
 */
export class KeyLimiter {
  private readonly windows = new Map<string, KeyWindow>();
  private readonly clock: () => number;
  private monthUsage: (keyId: string, monthStart: number) => { tokens: number; usd: number };
  /** Told once per key, cap, threshold (80 %, 100 %) and month (the dashboard's live `key_cap` event). */
  onCap: ((event: KeyCapEvent) => void) | null = null;

  constructor(monthUsage: (keyId: string, monthStart: number) => { tokens: number; usd: number }, clock: () => number = Date.now) {
    this.monthUsage = monthUsage;
    this.clock = clock;
  }

  private window(key: ApiKeyRecord, now: number): KeyWindow {
    let window = this.windows.get(key.id);
    if (!window || now >= window.monthEnd || now < window.monthStart) {
      const monthStart = startOfMonth(now);
      const used = this.monthUsage(key.id, monthStart);
      window = {
        requests: window?.requests ?? new SlidingLog(),
        tokens: window?.tokens ?? new SlidingLog(),
        monthStart,
        monthEnd: startOfMonth(now, 1),
        usedTokens: used.tokens,
        usedUsd: used.usd,
        // Requests in flight across the month boundary settle into the old month's window, not this one.
        reservedTokens: 0,
        reservedUsd: 0,
        capNotices: reachedNotices(key, used.tokens, used.usd),
        refusal: null,
      };
      this.windows.set(key.id, window);
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
    return this.headersFor(key, this.window(key, now), now);
  }

  /**
   * Reservations in flight and the last cap refusal of this month, without reading the database
   * (a key no request used since the start has neither). A refusal no longer holds once the cap
   * was raised or removed so far that the refused request would now fit.
   */
  capState(key: ApiKeyRecord): CapState {
    const window = this.windows.get(key.id);
    const now = this.clock();
    if (!window || now >= window.monthEnd || now < window.monthStart) return { reservedTokens: 0, reservedUsd: 0, refusal: null };
    let refusal = window.refusal;
    if (refusal?.cap === 'tokens' && (key.monthlyTokenCap === null || window.usedTokens + window.reservedTokens + refusal.needed <= key.monthlyTokenCap)) refusal = null;
    if (refusal?.cap === 'usd' && (key.monthlyUsdCap === null || window.usedUsd + window.reservedUsd + refusal.needed <= key.monthlyUsdCap)) refusal = null;
    return { reservedTokens: window.reservedTokens, reservedUsd: window.reservedUsd, refusal };
  }

  /** Admits the request (writing its x-ratelimit-* headers into `headers`) or throws a 429 that says which limit and when to retry. */
  admit(key: ApiKeyRecord, estimate: Estimate, headers: Record<string, string> = {}): Admission {
    const now = this.clock();
    const window = this.window(key, now);
    if (key.monthlyTokenCap !== null && window.usedTokens + window.reservedTokens + estimate.tokens > key.monthlyTokenCap) {
      // The cap stops requests before usage reaches it, so the first refusal is when the key hits it.
      this.announce(key, window, CAP_NOTICE.tokens100 | reachedNotices(key, window.usedTokens, window.usedUsd));
      window.refusal = { cap: 'tokens', at: now, needed: estimate.tokens };
      throw new RateLimitError(
        `This key has reached its monthly token cap of ${key.monthlyTokenCap} tokens (${window.usedTokens} used this month${window.reservedTokens ? `, ${window.reservedTokens} reserved by requests in flight` : ''}; this request needs up to ${estimate.tokens}). Raise the cap or wait for next month.`,
        'insufficient_quota',
      );
    }
    if (key.monthlyUsdCap !== null && window.usedUsd + window.reservedUsd + estimate.costUsd > key.monthlyUsdCap) {
      this.announce(key, window, CAP_NOTICE.usd100 | reachedNotices(key, window.usedTokens, window.usedUsd));
      window.refusal = { cap: 'usd', at: now, needed: estimate.costUsd };
      throw new RateLimitError(
        `This key has reached its monthly spend cap of $${key.monthlyUsdCap} ($${window.usedUsd.toFixed(4)} used this month; this request may cost up to $${estimate.costUsd.toFixed(4)}). Raise the cap or wait for next month.`,
        'insufficient_quota',
      );
    }
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
    window.reservedTokens += estimate.tokens;
    window.reservedUsd += estimate.costUsd;
    this.headersFor(key, window, now, headers);
    let settled = false;
    return {
      settle: (actual: Estimate) => {
        if (settled) return;
        settled = true;
        if (tokenEntry >= 0) window.tokens.adjust(tokenEntry, actual.tokens - estimate.tokens);
        window.reservedTokens -= estimate.tokens;
        window.reservedUsd -= estimate.costUsd;
        // A request settling after the month rolled over belongs to the month it started in.
        const current = this.windows.get(key.id);
        if (current === window) {
          window.usedTokens += actual.tokens;
          window.usedUsd += actual.costUsd;
          if (this.onCap !== null) this.announce(key, window, reachedNotices(key, window.usedTokens, window.usedUsd));
        }
      },
    };
  }

  /** Announces the thresholds in `reached` not yet announced this month, 80 % before 100 %. */
  private announce(key: ApiKeyRecord, window: KeyWindow, reached: number): void {
    const fresh = reached & ~window.capNotices;
    if (fresh === 0) return;
    window.capNotices |= fresh;
    if (this.onCap === null) return;
    const month = new Date(window.monthStart).toISOString().slice(0, 7);
    const notices: [number, KeyCapEvent['cap'], KeyCapEvent['threshold'], number, number | null][] = [
      [CAP_NOTICE.tokens80, 'tokens', 80, window.usedTokens, key.monthlyTokenCap],
      [CAP_NOTICE.tokens100, 'tokens', 100, window.usedTokens, key.monthlyTokenCap],
      [CAP_NOTICE.usd80, 'usd', 80, window.usedUsd, key.monthlyUsdCap],
      [CAP_NOTICE.usd100, 'usd', 100, window.usedUsd, key.monthlyUsdCap],
    ];
    for (const [bit, cap, threshold, used, limit] of notices) {
      if (fresh & bit && limit !== null) this.onCap({ key_id: key.id, key_name: key.name, cap, threshold, used, limit, month });
    }
  }

  private headersFor(key: ApiKeyRecord, window: KeyWindow, now: number, headers: Record<string, string> = {}): Record<string, string> {
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

/** The first instant (UTC) of the month `now` falls in, or of a month that many months later. */
export function startOfMonth(now: number, monthsLater = 0): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + monthsLater, 1);
}
