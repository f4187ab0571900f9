// The usage store as the rest of Patchbay sees it: a sink on the request path (record is
// synchronous and cheap; rows are committed in batches off the request path) and a reader with
// asynchronous reads for the dashboard, the CLI and the caps. SQLite (UsageStore +
// SqliteUsageReader) and PostgreSQL (PostgresUsageStore) implement both; one contract suite
// (test/stores/store-contract.ts) runs against each.
import type { AttemptReport } from '../errors/provider-error.ts';
import type { ContentEntry, UsageRecord } from './usage-record.ts';
import type { BreakdownGroup, LatencyRow, RequestLogPage, RequestRow, SeriesBucket, SeriesGroup, SessionPage, UsageBreakdown, UsageSeries, UsageTotals } from './usage-views.ts';

/** How often queued rows are committed. A kill -9 loses at most the rows queued in this window. */
export const USAGE_FLUSH_INTERVAL_MS = 50;

/** Instants in ms, `to` exclusive; both on whole UTC days (the API takes whole days). */
export interface UsageRange {
  from: number;
  to: number;
}

export interface LogFilter {
  /** ok: status below 400; error: 400 and above; a number: that status. */
  status?: 'ok' | 'error' | number;
  model?: string;
  provider?: string;
  keyId?: string;
  /** One session's requests (its id as the client sent it). */
  session?: string;
}

/** What `patchbay usage --by` and GET /api/usage/summary group by. */
export const USAGE_GROUPS = ['model', 'provider', 'provider-key', 'key', 'day'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

export interface UsageTotalsRow {
  provider: string | null;
  model: string | null;
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
}

export type GroupTotalsRow = Omit<UsageTotalsRow, 'provider' | 'model'> & { group: string | null };

export interface RecentAttempts {
  ts: number;
  stream: boolean;
  attempts: AttemptReport[];
}

/**
 * Told each row as it is recorded (the live `request` event; the event hub is one): a store checks
 * `listening` first, so with nobody listening no row is built.
 */
export interface RequestRowListener {
  readonly listening: boolean;
  emit(name: 'request', row: RequestRow): void;
}

/** Where a store sends each recorded row, with the key's name for display. */
export interface RequestEvents {
  hub: RequestRowListener;
  keyName: (keyId: string) => string | null;
}

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
  sessions(range: UsageRange, filter: LogFilter, limit: number, cursor: SessionCursor | null): Promise<SessionPage>;
  /** The latest rows' attempts since an instant, oldest first (health replayed at start). */
  recentAttempts(fromMs: number, limit?: number): Promise<RecentAttempts[]>;
}

/** Where a page of the Sessions list continues: after this session (of this key, '' for none), last active at `ts`. */
export interface SessionCursor {
  ts: number;
  session: string;
  key: string;
}
