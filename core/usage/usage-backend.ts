import type { BreakdownGroup, UsageBreakdown } from './usage-breakdown.ts';
// The usage store as the rest of Patchbay sees it: a sink on the request path (record is
// synchronous and cheap; rows are committed in batches off the request path) and a reader with
// asynchronous reads for the dashboard, the CLI and the caps. SQLite (UsageStore +
// SqliteUsageReader) and PostgreSQL (PostgresUsageStore) implement both; one contract suite
// (test/stores/store-contract.ts) runs against each.
import type { AttemptReport } from '../errors/provider-error.ts';
import type { ContentEntry } from './usage-batch-writer.ts';
import type { LogFilter, UsageRange } from './usage-queries.ts';
import type { UsageGroup, UsageRecord, UsageTotalsRow } from './usage-store.ts';
import type { LatencyRow, RequestLogPage, RequestRow, SeriesBucket, SeriesGroup, SessionPage, UsageSeries, UsageTotals } from './usage-views.ts';

export interface UsageSink {
  /** Queues one request's row (and tells the live events); never waits for the database. */
  record(row: UsageRecord): void;
  /** Request and response content of one request (only when the content log is turned on). */
  recordContent(entry: ContentEntry): void;
  /** Resolves once every row recorded before the call is committed (or the database refuses writes: they stay queued). */
  flushAsync(): Promise<void>;
  /** Commits what is queued and releases the connection(s). */
  close(): Promise<void>;
}

export type GroupTotalsRow = Omit<UsageTotalsRow, 'provider' | 'model'> & { group: string | null };

export interface RecentAttempts {
  ts: number;
  stream: boolean;
  attempts: AttemptReport[];
}

/** Every read sees the rows recorded (by this process) before it was called. */
export interface UsageReader {
  keyTotalsSince(keyId: string, fromMs: number): Promise<{ tokens: number; usd: number }>;
  totalsBy(groupBy: UsageGroup, fromMs: number, toMs: number): Promise<GroupTotalsRow[]>;
  totals(range: UsageRange): Promise<UsageTotals>;
  series(range: UsageRange, bucket: SeriesBucket, groupBy: SeriesGroup): Promise<UsageSeries>;
  latency(range: UsageRange): Promise<LatencyRow[]>;
  /** The Usage page's tables per model, provider or key. */
  breakdown(range: UsageRange, groupBy: BreakdownGroup): Promise<UsageBreakdown>;
  requestLog(range: UsageRange, filter: LogFilter, limit: number, cursor: { ts: number; id: number } | null): Promise<RequestLogPage>;
  request(requestId: string): Promise<RequestRow | null>;
  rows(fromMs: number, toMs: number, limit?: number): Promise<Record<string, unknown>[]>;
  /** Sessions active in the range with their agents (the Sessions page). */
  sessions(range: UsageRange, filter: LogFilter, limit: number, cursor: { ts: number; session: string } | null): Promise<SessionPage>;
  /** The latest rows' attempts since an instant, oldest first (health replayed at start). */
  recentAttempts(fromMs: number, limit?: number): Promise<RecentAttempts[]>;
}
