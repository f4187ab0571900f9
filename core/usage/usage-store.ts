import type { PatchbayDatabase } from '../sqlite/open-database.ts';
import { recordToRequestRow } from './to-request-row.ts';
import type { GroupTotalsRow, LogFilter, RequestEvents, SessionCursor, UsageGroup, UsageRange, UsageSink } from './usage-backend.ts';
import { toRowValues } from './usage-batch-writer.ts';
import { usageBreakdown } from './usage-breakdown.ts';
import { UsageQueries } from './usage-queries.ts';
import type { UsageRecord } from './usage-record.ts';
import type { BreakdownGroup, LatencyRow, RequestLogPage, RequestRow, SeriesBucket, SeriesGroup, SessionPage, UsageBreakdown, UsageSeries, UsageTotals } from './usage-views.ts';
import { UsageWriteQueue, type UsageWriteQueueOptions } from './usage-write-queue.ts';

export interface UsageStoreOptions extends UsageWriteQueueOptions {
  /** Where a `request` event goes as each row is recorded, with the key's name for display. */
  events?: RequestEvents;
}

/**
 * SQLite's usage store: rows are queued and committed in batches off the request path (its write
 * side, UsageWriteQueue, which it extends), and read back through UsageQueries. Reads flush first,
 * so they see every row recorded before them.
 */
export class UsageStore extends UsageWriteQueue implements UsageSink {
  private readonly events: RequestEvents | null;
  private queriesCache: UsageQueries | null = null;

  constructor(db: PatchbayDatabase, log: (message: string) => void = (message) => console.error(message), options: UsageStoreOptions = {}) {
    super(db, log, options);
    this.events = options.events ?? null;
  }

  record(row: UsageRecord): void {
    const values = toRowValues(row);
    if (this.events !== null && this.events.hub.listening) {
      this.events.hub.emit('request', recordToRequestRow(row, row.keyId === null ? null : this.events.keyName(row.keyId)));
    }
    this.add(values);
  }

  /** One key's tokens and cost since an instant (the caps' starting point at start-up). */
  keyTotalsSince(keyId: string, fromMs: number): { tokens: number; usd: number } {
    this.flush();
    return this.queries.keyTotalsSince(keyId, fromMs);
  }

  /** Totals grouped by key, provider, provider key (`groq (work)`), model (provider/model) or UTC day. */
  totalsBy(groupBy: UsageGroup, fromMs: number, toMs: number): GroupTotalsRow[] {
    this.flush();
    return this.queries.totalsBy(groupBy, fromMs, toMs);
  }

  /** The queries on this store's database, without the flush (SqliteUsageReader flushes first, asynchronously). */
  get queries(): UsageQueries {
    return (this.queriesCache ??= new UsageQueries(this.db));
  }

  /** Totals over a range (from the hourly rollup). */
  totals(range: UsageRange): UsageTotals {
    this.flush();
    return this.queries.totals(range);
  }

  /** Per day or hour, per provider, model or key (from the hourly rollup). */
  series(range: UsageRange, bucket: SeriesBucket, groupBy: SeriesGroup): UsageSeries {
    this.flush();
    return this.queries.series(range, bucket, groupBy);
  }

  /** Requests, error rate and latency percentiles per provider and day (from the rollups). */
  latency(range: UsageRange): LatencyRow[] {
    this.flush();
    return this.queries.latency(range);
  }

  /** Totals and latency percentiles per model, provider or key over a range (the Usage page's tables). */
  breakdown(range: UsageRange, groupBy: BreakdownGroup): UsageBreakdown {
    this.flush();
    return usageBreakdown(this.db, range, groupBy);
  }

  /** The request log, newest first, a page at a time. */
  requestLog(range: UsageRange, filter: LogFilter, limit: number, cursor: { ts: number; id: number } | null): RequestLogPage {
    this.flush();
    return this.queries.log(range, filter, limit, cursor);
  }

  /** Sessions active in the range, newest activity first (the Sessions page). */
  sessions(range: UsageRange, filter: LogFilter, limit: number, cursor: SessionCursor | null): SessionPage {
    this.flush();
    return this.queries.sessions(range, filter, limit, cursor);
  }

  request(requestId: string): RequestRow | null {
    this.flush();
    return this.queries.request(requestId);
  }

  /** Rows between two instants, newest first. */
  rows(fromMs: number, toMs: number, limit = 1000): Record<string, unknown>[] {
    this.flush();
    return this.queries.rows(fromMs, toMs, limit);
  }
}
