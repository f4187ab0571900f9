import { PatchbayError, RateLimitError } from '../errors/patchbay-error.ts';
import type { Admission } from './admission.ts';
import { MemoryBudgetLedger, startOfMonth, type BudgetLedger, type BudgetState, type Estimate, type MonthUsage, type Reservation, type ReserveResult } from './budget-ledger.ts';
import { CAP_NOTICE, CapNotices, reachedNotices } from './cap-notices.ts';
import { DatabaseOutageLog } from './database-outage-log.ts';
import type { KeyCapEvent } from './key-cap-event.ts';
import { KeyRateWindows } from './key-rate-windows.ts';
import type { ApiKeyRecord } from './key-store.ts';
import type { SharedRateWindows } from './shared-rate-windows.ts';

export type { Estimate } from './budget-ledger.ts';
export { startOfMonth } from './budget-ledger.ts';

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

/** What caps do while the ledger's database cannot be reached: refuse with a 503 (closed) or admit unchecked (open). */
export type CapsWhenUnreachable = 'closed' | 'open';

export interface KeyLimiterOptions {
  /** Rate windows shared by a team's replicas (PostgreSQL); without them the windows are this process's own. */
  rates?: SharedRateWindows | null;
  /** config `keys.capsWhenDatabaseUnreachable`; default closed. Keys without caps never ask the database. */
  capsWhenUnreachable?: CapsWhenUnreachable;
  log?: (message: string) => void;
}

/**
 * Per-key rate limits (requests and tokens per minute: KeyRateWindows) and monthly caps (a
 * BudgetLedger: in memory for SQLite, in the database for PostgreSQL's replicas).
 *
 * Caps: a request is admitted only if used + reserved (in flight) + its own estimate stays within
 * the cap. The estimate is the prompt's byte count (an upper bound on its tokens) plus max_tokens
 * (or 256 when unset). So a cap is overrun only by requests without max_tokens that generate
 * more than 256 tokens: at most the excess of the requests in flight at that moment.
 */
export class KeyLimiter {
  private readonly windows: KeyRateWindows;
  private readonly notices = new CapNotices();
  private readonly clock: () => number;
  private readonly ledger: BudgetLedger;
  /** The last request a monthly cap refused, per key, with the budget as it stood then (the Keys page's red bar). */
  private readonly refusals = new Map<string, CapRefusal & { monthStart: number; state: BudgetState }>();
  /** Told once per key, cap, threshold (80 %, 100 %) and month (the dashboard's live `key_cap` event). */
  onCap: ((event: KeyCapEvent) => void) | null = null;

  private readonly capsOpen: boolean;
  /** One outage logged once, whether the caps or the shared rate windows met it. */
  private readonly outage: DatabaseOutageLog;
  /** Capped requests admitted unchecked while the database was unreachable (`capsWhenDatabaseUnreachable: "open"`). */
  admittedUncapped = 0;

  /** `caps`: a ledger, or how to read a key's settled usage of a month (then the caps are kept in memory). */
  constructor(caps: BudgetLedger | MonthUsage, clock: () => number = Date.now, options: KeyLimiterOptions = {}) {
    this.ledger = typeof caps === 'function' ? new MemoryBudgetLedger(caps) : caps;
    this.clock = clock;
    this.capsOpen = options.capsWhenUnreachable === 'open';
    this.outage = new DatabaseOutageLog(clock, options.log ?? (() => undefined));
    this.windows = new KeyRateWindows(clock, options.rates ?? null, this.outage);
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
    return this.windows.headers(key);
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
          this.outage.reachable();
          return this.afterReserve(key, estimate, headers, this.clock(), result);
        },
        (error: Error) => {
          if (this.capsOpen) {
            // The config chose availability over the cap: admitted unchecked, counted and logged.
            this.admittedUncapped++;
            this.outage.unreachable(error, 'capped keys are admitted without their cap check meanwhile (keys.capsWhenDatabaseUnreachable is "open")');
            // No hold to settle, but the month's spend must still count once the database is back.
            const monthStart = startOfMonth(now);
            const charged: Reservation = { settle: (actual) => this.ledger.charge?.(key, actual, monthStart), release: () => undefined };
            return this.admitRate(key, estimate, headers, this.clock(), charged);
          }
          this.outage.unreachable(error, 'capped keys are refused with 503 cap_unavailable meanwhile (keys.capsWhenDatabaseUnreachable is "closed", the default)');
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
    this.notices.init(key, state);
    if (!result.ok) {
      this.refusals.set(key.id, { cap: result.cap, at: now, needed: result.cap === 'tokens' ? estimate.tokens : estimate.costUsd, monthStart: startOfMonth(now), state: { ...state } });
      // The cap stops requests before usage reaches it, so the first refusal is when the key hits it.
      const reached = reachedNotices(key, state.usedTokens, state.usedUsd);
      if (result.cap === 'tokens') {
        this.notices.announce(key, state, CAP_NOTICE.tokens100 | reached, this.onCap);
        throw new RateLimitError(
          `This key has reached its monthly token cap of ${key.monthlyTokenCap} tokens (${state.usedTokens} used this month${state.reservedTokens ? `, ${state.reservedTokens} reserved by requests in flight` : ''}; this request needs up to ${estimate.tokens}). Raise the cap or wait for next month.`,
          'insufficient_quota',
        );
      }
      this.notices.announce(key, state, CAP_NOTICE.usd100 | reached, this.onCap);
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
    reservation?.settle(actual, this.onCap === null ? undefined : (state) => this.notices.announce(key, state, reachedNotices(key, state.usedTokens, state.usedUsd), this.onCap));
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
    return this.windows.admit(key, estimate, headers, now, (actual) => this.settleCaps(key, reservation, actual));
  }
}

const NOTHING_HELD: Admission = { settle: () => undefined };
