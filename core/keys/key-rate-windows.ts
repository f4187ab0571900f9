import { RateLimitError } from '../errors/patchbay-error.ts';
import type { Admission } from './admission.ts';
import type { Estimate } from './budget-ledger.ts';
import type { DatabaseOutageLog } from './database-outage-log.ts';
import type { ApiKeyRecord } from './key-store.ts';
import { formatDuration, writeRateHeaders } from './rate-limit-headers.ts';
import type { SharedRateResult, SharedRateWindows } from './shared-rate-windows.ts';
import { SlidingLog } from './sliding-log.ts';

const MINUTE_MS = 60_000;

interface RateWindow {
  /** Admissions in the last minute (requests per minute: an exact sliding log; `total` is the count). */
  requests: SlidingLog;
  /** Tokens in the last minute: a request adds its reservation, and on settle the difference to what it really used. */
  tokens: SlidingLog;
}

/** The key's minute as the shared windows last answered it (headers of answers that never reached admission). */
interface SharedSnapshot {
  requests: number;
  tokens: number;
  resetAt: number;
}

/**
 * Per-key rate limits, requests and tokens per minute: exact sliding windows in this process on
 * SQLite, one-second windows in the database that PostgreSQL's replicas share. Local admission is
 * one synchronous step on Node's single thread, so concurrent requests cannot both take the last
 * slot: 50 parallel requests against a limit of 10 let exactly 10 through.
 */
export class KeyRateWindows {
  private readonly rates = new Map<string, RateWindow>();
  private readonly shared = new Map<string, SharedSnapshot>();
  private readonly clock: () => number;
  private readonly sharedRates: SharedRateWindows | null;
  private readonly outage: DatabaseOutageLog;

  constructor(clock: () => number, sharedRates: SharedRateWindows | null, outage: DatabaseOutageLog) {
    this.clock = clock;
    this.sharedRates = sharedRates;
    this.outage = outage;
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

  /** The x-ratelimit-* headers as they stand, for answers that never reached admission (errors). */
  headers(key: ApiKeyRecord): Record<string, string> {
    if (key.rpmLimit === null && key.tpmLimit === null) return {};
    const now = this.clock();
    const snapshot = this.sharedRates ? this.shared.get(key.id) : undefined;
    if (snapshot) return writeRateHeaders(key, snapshot.requests, snapshot.tokens, snapshot.resetAt - now);
    return this.headersFor(key, this.rateWindow(key, now), now);
  }

  /**
   * Admits a key with a rate limit (writing its x-ratelimit-* headers into `headers`) or throws a 429
   * that says which limit and when to retry. `settled` runs once, when the admission settles.
   */
  admit(key: ApiKeyRecord, estimate: Estimate, headers: Record<string, string>, now: number, settled: (actual: Estimate) => void): Admission | Promise<Admission> {
    if (this.sharedRates) return this.admitShared(this.sharedRates, key, estimate, headers, settled);
    return this.admitLocal(key, estimate, headers, now, settled);
  }

  /**
   * The replicas' shared windows: one round trip. While the database cannot be reached, this
   * replica's own window holds the limit (each replica then admits up to the limit on its own).
   */
  private async admitShared(rates: SharedRateWindows, key: ApiKeyRecord, estimate: Estimate, headers: Record<string, string>, afterSettle: (actual: Estimate) => void): Promise<Admission> {
    if (key.tpmLimit !== null && estimate.tokens > key.tpmLimit) {
      throw new RateLimitError(tooBigMessage(estimate.tokens, key.tpmLimit), 'rate_limit_exceeded', undefined, this.headers(key));
    }
    const tokens = key.tpmLimit !== null ? estimate.tokens : 0;
    let result: SharedRateResult;
    try {
      result = await rates.admit(key, tokens);
    } catch (error) {
      this.outage.unreachable(error as Error, "rate limits are held by each replica's own window meanwhile");
      return this.admitLocal(key, estimate, headers, this.clock(), afterSettle);
    }
    this.outage.reachable();
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
        afterSettle(actual);
      },
    };
  }

  private admitLocal(key: ApiKeyRecord, estimate: Estimate, headers: Record<string, string>, now: number, afterSettle: (actual: Estimate) => void): Admission {
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
        afterSettle(actual);
      },
    };
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
