import { PatchbayError, RateLimitError } from '../errors/patchbay-error.ts';
import type { KeyCapEvent } from '../events/event-hub.ts';
import type { ApiKeyRecord } from './key-store.ts';
import type { SharedRateResult, SharedRateWindows } from './shared-rate-windows.ts';
import { SlidingLog } from './sliding-log.ts';
import { MemoryBudgetLedger, startOfMonth, type BudgetLedger, type BudgetState, type Estimate, type MonthUsage, type Reservation, type ReserveResult } from './budget-ledger.ts';

const MINUTE_MS = 60_000;

export type { Estimate } from './budget-ledger.ts';
export { startOfMonth } from './budget-ledger.ts';

/** A request let through: it holds its reservation until it settles with what it really used. */
/** A request a monthly cap refused: the Keys page shows the key as refusing, not as "77 % used". */
export interface CapRefusal {
  cap: 'tokens' | 'usd';
  at: number;
  /** The refused request's estimate (tokens, or USD). */
  needed: number;
}

/** What the Keys page shows beside a key's month usage: the last refusal and what was reserved then. */
export interface CapState {
  reservedTokens: number;
  reservedUsd: number;
  refusal: CapRefusal | null;
}

export interface Admission {
  settle(actual: Estimate): void;
}

interface RateWindow {
  /** Admissions in the last minute (requests per minute: an exact sliding log; `total` is the count). */
  requests: SlidingLog;
  /** Tokens in the last minute: a request adds its reservation, and on settle the difference to what it really used. */
  tokens: SlidingLog;
}

/** What caps do while the ledger's database cannot be reached: refuse with a 503 (closed) or admit unchecked (open). */
export type CapsWhenUnreachable = 'closed' | 'open';

export interface KeyLimiterOptions {
  /** Rate windows shared by a team's replicas (PostgreSQL); without them the windows are this process's own. */
  rates?: SharedRateWindows | null;
  /** config `keys.capsWhenDatabaseUnreachable`; default closed. Keys without caps never ask the database. */
  capsWhenUnreachable?: CapsWhenUnreachable;
  log?: (message: string) => void;
}

/** The key's minute as the shared windows last answered it (headers of answers that never reached admission). */
interface SharedSnapshot {
  requests: number;
  tokens: number;
  resetAt: number;
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
 * Per-key rate limits (requests and tokens per minute: sliding windows in this process on SQLite,
 * shared one-second windows in the database for PostgreSQL's replicas) and monthly caps (a
 * BudgetLedger: in memory for SQLite, in the database for PostgreSQL's replicas).
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
  /** The last request a monthly cap refused, per key, with the budget as it stood then (the Keys page's red bar). */
  private readonly refusals = new Map<string, CapRefusal & { monthStart: number; state: BudgetState }>();
  /** Told once per key, cap, threshold (80 %, 100 %) and month (the dashboard's live `key_cap` event). */
  onCap: ((event: KeyCapEvent) => void) | null = null;

  private readonly sharedRates: SharedRateWindows | null;
  private readonly shared = new Map<string, SharedSnapshot>();
  private readonly capsOpen: boolean;
  private readonly log: (message: string) => void;
  /** Since when the database has been unreachable for this limiter (null: reachable), so an outage is logged once. */
  private unreachableSince: number | null = null;
  /** Capped requests admitted unchecked while the database was unreachable (`capsWhenDatabaseUnreachable: "open"`). */
  admittedUncapped = 0;

  /** `caps`: a ledger, or how to read a key's settled usage of a month (then the caps are kept in memory). */
  constructor(caps: BudgetLedger | MonthUsage, clock: () => number = Date.now, options: KeyLimiterOptions = {}) {
    this.ledger = typeof caps === 'function' ? new MemoryBudgetLedger(caps) : caps;
    this.clock = clock;
    this.sharedRates = options.rates ?? null;
    this.capsOpen = options.capsWhenUnreachable === 'open';
    this.log = options.log ?? (() => undefined);
  }

  /** Says once per outage that the database is away and what the limits do meanwhile. */
  private noteUnreachable(error: Error, what: string): void {
    if (this.unreachableSince !== null) return;
    this.unreachableSince = this.clock();
    this.log(`The database is unreachable (${error.message}): ${what}.`);
  }

  private noteReachable(): void {
    if (this.unreachableSince === null) return;
    this.log(`The database is reachable again after ${((this.clock() - this.unreachableSince) / 1000).toFixed(1)} s; limits and caps are shared again.`);
    this.unreachableSince = null;
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

  /**
   * The last cap refusal of this month and what requests in flight had reserved then, without asking
   * the ledger. A refusal no longer holds once the cap was raised or removed so far that the refused
   * request would now fit.
   */
  capState(key: ApiKeyRecord): CapState {
    const refusal = this.refusals.get(key.id);
    if (!refusal || refusal.monthStart !== startOfMonth(this.clock())) return { reservedTokens: 0, reservedUsd: 0, refusal: null };
    const { state } = refusal;
    const cap = refusal.cap === 'tokens' ? key.monthlyTokenCap : key.monthlyUsdCap;
    const used = refusal.cap === 'tokens' ? state.usedTokens + state.reservedTokens : state.usedUsd + state.reservedUsd;
    if (cap === null || used + refusal.needed <= cap) return { reservedTokens: 0, reservedUsd: 0, refusal: null };
    return { reservedTokens: state.reservedTokens, reservedUsd: state.reservedUsd, refusal: { cap: refusal.cap, at: refusal.at, needed: refusal.needed } };
  }

  static isLimited(key: ApiKeyRecord): boolean {
    return key.rpmLimit !== null || key.tpmLimit !== null || key.monthlyTokenCap !== null || key.monthlyUsdCap !== null;
  }

  /** The x-ratelimit-* headers as they stand, for answers that never reached admission (errors). */
  headers(key: ApiKeyRecord): Record<string, string> {
    if (key.rpmLimit === null && key.tpmLimit === null) return {};
    const now = this.clock();
    const snapshot = this.sharedRates ? this.shared.get(key.id) : undefined;
    if (snapshot) return writeRateHeaders(key, snapshot.requests, snapshot.tokens, snapshot.resetAt - now);
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
        (result) => {
          this.noteReachable();
          return this.afterReserve(key, estimate, headers, this.clock(), result);
        },
        (error: Error) => {
          if (this.capsOpen) {
            // The config chose availability over the cap: admitted unchecked, counted and logged.
            this.admittedUncapped++;
            this.noteUnreachable(error, 'capped keys are admitted without their cap check meanwhile (keys.capsWhenDatabaseUnreachable is "open")');
            // No hold to settle, but the month's spend must still count once the database is back.
            const monthStart = startOfMonth(now);
            const charged: Reservation = { settle: (actual) => this.ledger.charge?.(key, actual, monthStart), release: () => undefined };
            return this.admitRate(key, estimate, headers, this.clock(), charged);
          }
          this.noteUnreachable(error, 'capped keys are refused with 503 cap_unavailable meanwhile (keys.capsWhenDatabaseUnreachable is "closed", the default)');
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

  private afterReserve(key: ApiKeyRecord, estimate: Estimate, headers: Record<string, string>, now: number, result: ReserveResult): Admission | Promise<Admission> {
    const { state } = result;
    this.initNotices(key, state);
    if (!result.ok) {
      this.refusals.set(key.id, { cap: result.cap, at: now, needed: result.cap === 'tokens' ? estimate.tokens : estimate.costUsd, monthStart: startOfMonth(now), state: { ...state } });
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
    const reservation = result.reservation;
    try {
      const admitted = this.admitRate(key, estimate, headers, now, reservation);
      if (!(admitted instanceof Promise)) return admitted;
      return admitted.catch((error: unknown) => {
        reservation.release();
        throw error;
      });
    } catch (error) {
      reservation.release();
      throw error;
    }
  }

  private settleCaps(key: ApiKeyRecord, reservation: Reservation | null, actual: Estimate): void {
    reservation?.settle(actual, this.onCap === null ? undefined : (state) => this.announce(key, state, reachedNotices(key, state.usedTokens, state.usedUsd)));
  }

  private admitRate(key: ApiKeyRecord, estimate: Estimate, headers: Record<string, string>, now: number, reservation: Reservation | null): Admission | Promise<Admission> {
    if (key.rpmLimit === null && key.tpmLimit === null) {
      if (reservation === null) return NOTHING_HELD;
      let settled = false;
      return {
        settle: (actual: Estimate) => {
          if (settled) return;
          settled = true;
          this.settleCaps(key, reservation, actual);
        },
      };
    }
    if (this.sharedRates) return this.admitShared(this.sharedRates, key, estimate, headers, reservation);
    return this.admitLocal(key, estimate, headers, now, reservation);
  }

  /**
   * The replicas' shared windows: one round trip. While the database cannot be reached, this
   * replica's own window holds the limit (each replica then admits up to the limit on its own).
   */
  private async admitShared(rates: SharedRateWindows, key: ApiKeyRecord, estimate: Estimate, headers: Record<string, string>, reservation: Reservation | null): Promise<Admission> {
    if (key.tpmLimit !== null && estimate.tokens > key.tpmLimit) {
      throw new RateLimitError(tooBigMessage(estimate.tokens, key.tpmLimit), 'rate_limit_exceeded', undefined, this.headers(key));
    }
    const tokens = key.tpmLimit !== null ? estimate.tokens : 0;
    let result: SharedRateResult;
    try {
      result = await rates.admit(key, tokens);
    } catch (error) {
      this.noteUnreachable(error as Error, "rate limits are held by each replica's own window meanwhile");
      return this.admitLocal(key, estimate, headers, this.clock(), reservation);
    }
    this.noteReachable();
    const now = this.clock();
    this.shared.set(key.id, { requests: result.requests, tokens: result.tokens, resetAt: now + result.retryMs });
    if (!result.admitted) {
      const retry = result.retryMs / 1000;
      const refusedHeaders = writeRateHeaders(key, result.requests, result.tokens, result.retryMs);
      if (key.rpmLimit !== null && result.requests + 1 > key.rpmLimit) throw new RateLimitError(requestsMessage(key.rpmLimit, retry), 'rate_limit_exceeded', retry, refusedHeaders);
      throw new RateLimitError(tokensMessage(key.tpmLimit!, result.tokens, retry), 'rate_limit_exceeded', retry, refusedHeaders);
    }
    writeRateHeaders(key, result.requests, result.tokens, result.retryMs, headers);
    let settled = false;
    return {
      settle: (actual: Estimate) => {
        if (settled) return;
        settled = true;
        if (tokens > 0) rates.adjust(key, result.bucket, actual.tokens - estimate.tokens);
        this.settleCaps(key, reservation, actual);
      },
    };
  }

  private admitLocal(key: ApiKeyRecord, estimate: Estimate, headers: Record<string, string>, now: number, reservation: Reservation | null): Admission {
    const window = this.rateWindow(key, now);
    if (key.rpmLimit !== null && window.requests.total >= key.rpmLimit) {
      const retry = (window.requests.oldest()! + MINUTE_MS - now) / 1000;
      throw new RateLimitError(requestsMessage(key.rpmLimit, retry), 'rate_limit_exceeded', retry, this.headersFor(key, window, now));
    }
    if (key.tpmLimit !== null) {
      const used = window.tokens.total;
      if (estimate.tokens > key.tpmLimit) {
        throw new RateLimitError(tooBigMessage(estimate.tokens, key.tpmLimit), 'rate_limit_exceeded', undefined, this.headersFor(key, window, now));
      }
      if (used + estimate.tokens > key.tpmLimit) {
        const retry = (window.tokens.oldest()! + MINUTE_MS - now) / 1000;
        throw new RateLimitError(tokensMessage(key.tpmLimit, used, retry), 'rate_limit_exceeded', retry, this.headersFor(key, window, now));
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
        this.settleCaps(key, reservation, actual);
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

const requestsMessage = (limit: number, retry: number) => `Rate limit reached for this key: ${limit} requests per minute. Retry in ${retry.toFixed(1)}s.`;
const tokensMessage = (limit: number, used: number, retry: number) => `Rate limit reached for this key: ${limit} tokens per minute (${used} used). Retry in ${retry.toFixed(1)}s.`;
const tooBigMessage = (tokens: number, limit: number) => `This request may use up to ${tokens} tokens, more than this key's limit of ${limit} tokens per minute. Lower max_tokens or raise the limit.`;

/** The x-ratelimit-* headers from the shared windows' answer (both resets: when the oldest admission leaves). */
function writeRateHeaders(key: ApiKeyRecord, requests: number, tokens: number, resetMs: number, headers: Record<string, string> = {}): Record<string, string> {
  const reset = formatDuration(Math.max(0, resetMs));
  if (key.rpmLimit !== null) {
    headers['x-ratelimit-limit-requests'] = String(key.rpmLimit);
    headers['x-ratelimit-remaining-requests'] = String(Math.max(0, key.rpmLimit - requests));
    headers['x-ratelimit-reset-requests'] = reset;
  }
  if (key.tpmLimit !== null) {
    headers['x-ratelimit-limit-tokens'] = String(key.tpmLimit);
    headers['x-ratelimit-remaining-tokens'] = String(Math.max(0, key.tpmLimit - tokens));
    headers['x-ratelimit-reset-tokens'] = reset;
  }
  return headers;
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
