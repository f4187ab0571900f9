import type { GroupTotalsRow, LogFilter, RecentAttempts, SessionCursor, UsageGroup, UsageRange, UsageReader } from './usage-backend.ts';
import type { UsageStore } from './usage-store.ts';
import type { BreakdownGroup, LatencyRow, RequestLogPage, RequestRow, SeriesBucket, SeriesGroup, SessionPage, UsageBreakdown, UsageSeries, UsageTotals } from './usage-views.ts';

/**
 * SQLite's UsageReader: each read first waits, without blocking the event loop, for the writer
 * thread to commit what was recorded before it (UsageStore.flushAsync), then queries the same
 * file. The queries themselves are synchronous better-sqlite3 calls on the rollup tables and
 * indexes (sub-millisecond for the dashboard's ranges).
 */
export class SqliteUsageReader implements UsageReader {
  private readonly store: UsageStore;

  constructor(store: UsageStore) {
    this.store = store;
  }

  async keyTotalsSince(keyId: string, fromMs: number): Promise<{ tokens: number; usd: number }> {
    await this.store.flushAsync();
    return this.store.queries.keyTotalsSince(keyId, fromMs);
  }

  async totalsBy(groupBy: UsageGroup, fromMs: number, toMs: number): Promise<GroupTotalsRow[]> {
    await this.store.flushAsync();
    return this.store.queries.totalsBy(groupBy, fromMs, toMs);
  }

  async totals(range: UsageRange): Promise<UsageTotals> {
    await this.store.flushAsync();
    return this.store.queries.totals(range);
  }

  async series(range: UsageRange, bucket: SeriesBucket, groupBy: SeriesGroup): Promise<UsageSeries> {
    await this.store.flushAsync();
    return this.store.queries.series(range, bucket, groupBy);
  }

  async breakdown(range: UsageRange, groupBy: BreakdownGroup): Promise<UsageBreakdown> {
    await this.store.flushAsync();
    return this.store.queries.breakdown(range, groupBy);
  }

  async latency(range: UsageRange): Promise<LatencyRow[]> {
    await this.store.flushAsync();
    return this.store.queries.latency(range);
  }

  async requestLog(range: UsageRange, filter: LogFilter, limit: number, cursor: { ts: number; id: number } | null): Promise<RequestLogPage> {
    await this.store.flushAsync();
    return this.store.queries.log(range, filter, limit, cursor);
  }

  async sessions(range: UsageRange, filter: LogFilter, limit: number, cursor: SessionCursor | null): Promise<SessionPage> {
    await this.store.flushAsync();
    return this.store.queries.sessions(range, filter, limit, cursor);
  }

  async request(requestId: string): Promise<RequestRow | null> {
    await this.store.flushAsync();
    return this.store.queries.request(requestId);
  }

  async rows(fromMs: number, toMs: number, limit = 1000): Promise<Record<string, unknown>[]> {
    await this.store.flushAsync();
    return this.store.queries.rows(fromMs, toMs, limit);
  }

  async recentAttempts(fromMs: number, limit = 5000): Promise<RecentAttempts[]> {
    await this.store.flushAsync();
    return this.store.queries.recentAttempts(fromMs, limit);
  }
}
