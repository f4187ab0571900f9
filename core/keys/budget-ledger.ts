import type { ApiKeyRecord } from './key-store.ts';

/** Tokens and USD: an estimate before the call, what the request really used after it. */
export interface Estimate {
  tokens: number;
  costUsd: number;
}

/** A key's month as the ledger saw it when it answered: settled usage and what requests in flight hold. */
export interface BudgetState {
  monthStart: number;
  usedTokens: number;
  usedUsd: number;
  reservedTokens: number;
  reservedUsd: number;
}

/** A request's hold on its key's caps, from admission until it settles or is released. */
export interface Reservation {
  /** Replaces the hold with what the request used; `onSettled` hears the month's totals after it (cap notices). */
  settle(actual: Estimate, onSettled?: (state: BudgetState) => void): void;
  /** Gives the hold back unused (refused by a rate limit after the caps said yes). */
  release(): void;
}

export type ReserveResult = { ok: true; reservation: Reservation; state: BudgetState } | { ok: false; cap: 'tokens' | 'usd'; state: BudgetState };

/**
 * The monthly caps: each request reserves its worst-case estimate before the upstream call and
 * settles to its real cost after. SQLite's ledger keeps the month in this process's memory (one
 * process owns the database); PostgreSQL's reserves with one atomic statement in the database, so
 * replicas share it. `reserve` answers synchronously when it can (SQLite, once the month's usage
 * is loaded): KeyLimiter.admit is the one place that tells the two apart.
 */
export interface BudgetLedger {
  reserve(key: ApiKeyRecord, estimate: Estimate, now: number): ReserveResult | Promise<ReserveResult>;
  /**
   * Adds what a request admitted without a reservation used (caps failing open while the database
   * was away), once the ledger can be written again. Absent: the ledger never fails (SQLite).
   */
  charge?(key: ApiKeyRecord, actual: Estimate, monthStart: number): void;
  close(): Promise<void>;
}

/** The first instant (UTC) of the month `now` falls in, or of a month that many months later. */
export function startOfMonth(now: number, monthsLater = 0): number {
  const date = new Date(now);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + monthsLater, 1);
}

/** Whether the estimate fits under the key's caps, and which cap refuses it otherwise. */
export function capRefusing(key: ApiKeyRecord, state: BudgetState, estimate: Estimate): 'tokens' | 'usd' | null {
  if (key.monthlyTokenCap !== null && state.usedTokens + state.reservedTokens + estimate.tokens > key.monthlyTokenCap) return 'tokens';
  if (key.monthlyUsdCap !== null && state.usedUsd + state.reservedUsd + estimate.costUsd > key.monthlyUsdCap) return 'usd';
  return null;
}

interface MonthWindow extends BudgetState {
  /** Start of the next month: the window holds while now is before it (no date arithmetic per request). */
  monthEnd: number;
}

export type MonthUsage = (keyId: string, monthStart: number) => { tokens: number; usd: number } | Promise<{ tokens: number; usd: number }>;

/**
 * One process's ledger (the SQLite backend): the month's settled usage is read once per key and
 * month from the usage rows (asynchronously: the read waits for queued rows to be committed
 * without blocking the event loop), then kept in memory; reservations are in memory only, so a
 * restart drops them with the requests that held them.
 */
export class MemoryBudgetLedger implements BudgetLedger {
  private readonly windows = new Map<string, MonthWindow>();
  private readonly loading = new Map<string, Promise<MonthWindow>>();
  private readonly monthUsage: MonthUsage;

  constructor(monthUsage: MonthUsage) {
    this.monthUsage = monthUsage;
  }

  reserve(key: ApiKeyRecord, estimate: Estimate, now: number): ReserveResult | Promise<ReserveResult> {
    const window = this.windows.get(key.id);
    if (window && now < window.monthEnd && now >= window.monthStart) return this.take(window, key, estimate);
    const loaded = this.load(key.id, now);
    return loaded instanceof Promise ? loaded.then((w) => this.take(w, key, estimate)) : this.take(loaded, key, estimate);
  }

  private load(keyId: string, now: number): MonthWindow | Promise<MonthWindow> {
    const monthStart = startOfMonth(now);
    const loadKey = `${keyId}|${monthStart}`;
    const pending = this.loading.get(loadKey);
    if (pending) return pending;
    const install = (used: { tokens: number; usd: number }): MonthWindow => {
      const current = this.windows.get(keyId);
      // Another admission loaded this month while this read was in flight: keep its reservations.
      if (current && current.monthStart === monthStart) return current;
      // Requests in flight across the month boundary settle into the old month's window, not this one.
      const window: MonthWindow = { monthStart, monthEnd: startOfMonth(now, 1), usedTokens: used.tokens, usedUsd: used.usd, reservedTokens: 0, reservedUsd: 0 };
      this.windows.set(keyId, window);
      return window;
    };
    const used = this.monthUsage(keyId, monthStart);
    if (!(used instanceof Promise)) return install(used);
    const promise = used.then(install).finally(() => this.loading.delete(loadKey));
    this.loading.set(loadKey, promise);
    return promise;
  }

  private take(window: MonthWindow, key: ApiKeyRecord, estimate: Estimate): ReserveResult {
    const cap = capRefusing(key, window, estimate);
    if (cap !== null) return { ok: false, cap, state: { ...window } };
    window.reservedTokens += estimate.tokens;
    window.reservedUsd += estimate.costUsd;
    let done = false;
    const windows = this.windows;
    return {
      ok: true,
      state: window,
      reservation: {
        settle(actual, onSettled) {
          if (done) return;
          done = true;
          window.reservedTokens -= estimate.tokens;
          window.reservedUsd -= estimate.costUsd;
          // A request settling after the month rolled over belongs to the month it started in.
          if (windows.get(key.id) !== window) return;
          window.usedTokens += actual.tokens;
          window.usedUsd += actual.costUsd;
          onSettled?.(window);
        },
        release() {
          if (done) return;
          done = true;
          window.reservedTokens -= estimate.tokens;
          window.reservedUsd -= estimate.costUsd;
        },
      },
    };
  }

  async close(): Promise<void> {}
}
