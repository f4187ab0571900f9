import type { AttemptReport } from '../errors/provider-error.ts';
import type { PatchbayDatabase } from './open-database.ts';

/** One request's metadata. Never content. */
export interface UsageRecord {
  ts: number;
  requestId: string;
  keyId: string | null;
  endpoint: 'chat' | 'completions' | 'embeddings' | 'models';
  requestedModel: string | null;
  provider: string | null;
  model: string | null;
  strategy: string | null;
  status: number;
  errorType: string | null;
  stream: boolean;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** USD per million tokens in force when the request ran. */
  inputPrice: number | null;
  outputPrice: number | null;
  costUsd: number;
  latencyMs: number;
  firstByteMs: number | null;
  attempts: AttemptReport[];
}

export interface UsageTotalsRow {
  provider: string | null;
  model: string | null;
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_usd: number;
}

/** How often queued rows are committed. A kill -9 loses at most the rows queued in this window. */
export const USAGE_FLUSH_INTERVAL_MS = 50;
const USAGE_FLUSH_BATCH = 500;
const RETRY_AFTER_FAILURE_MS = 1000;
/** Columns of a usage row, and rows per multi-row INSERT (16 × 20 parameters, far below SQLite's limit). */
const USAGE_COLUMNS = 20;
const ROWS_PER_INSERT = 16;
/** Rows kept in memory while the database refuses writes (about 50 MB at most). */
const MAX_PENDING_ROWS = 100_000;

/**
 * Usage rows are queued in memory and committed in batches, off the request path: one
 * transaction per batch keeps the write cost per request to microseconds.
 */
export class UsageStore {
  private readonly db: PatchbayDatabase;
  private queue: UsageRecord[] = [];
  private contentQueue: { requestId: string; ts: number; request: string; response: string | null }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly insert;
  private readonly insertMany;
  private readonly insertBatch;
  private readonly log: (message: string) => void;
  private failing = false;

  constructor(db: PatchbayDatabase, log: (message: string) => void = (message) => console.error(message)) {
    this.db = db;
    this.log = log;
    const columns = `ts, request_id, key_id, endpoint, requested_model, provider, model, strategy, status, error_type,
         stream, prompt_tokens, completion_tokens, total_tokens, input_price, output_price, cost_usd, latency_ms, first_byte_ms, attempts`;
    const placeholders = (rows: number) => Array.from({ length: rows }, () => `(${'?, '.repeat(USAGE_COLUMNS - 1)}?)`).join(', ');
    this.insert = db.prepare(`INSERT INTO usage (${columns}) VALUES ${placeholders(1)}`);
    this.insertMany = db.prepare(`INSERT INTO usage (${columns}) VALUES ${placeholders(ROWS_PER_INSERT)}`);
    const insertContent = db.prepare('INSERT OR REPLACE INTO content_log (request_id, ts, request, response) VALUES (@requestId, @ts, @request, @response)');
    this.insertBatch = db.transaction((rows: UsageRecord[], content: UsageStore['contentQueue']) => {
      // Several rows per statement: each call into SQLite has a fixed cost that a busy router pays per row otherwise.
      let next = 0;
      const values: unknown[] = [];
      for (; next + ROWS_PER_INSERT <= rows.length; next += ROWS_PER_INSERT) {
        values.length = 0;
        for (let i = next; i < next + ROWS_PER_INSERT; i++) pushRow(values, rows[i]);
        this.insertMany.run(values);
      }
      for (; next < rows.length; next++) {
        values.length = 0;
        pushRow(values, rows[next]);
        this.insert.run(values);
      }
      for (const entry of content) insertContent.run(entry);
    });
  }

  record(row: UsageRecord): void {
    this.queue.push(row);
    if (this.failing) return;
    if (this.queue.length >= USAGE_FLUSH_BATCH) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), USAGE_FLUSH_INTERVAL_MS);
      this.timer.unref();
    }
  }

  /** Request and response content of one request (only when the content log is turned on). */
  recordContent(entry: { requestId: string; ts: number; request: string; response: string | null }): void {
    this.contentQueue.push(entry);
  }

  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.queue.length === 0 && this.contentQueue.length === 0) return;
    const rows = this.queue;
    const content = this.contentQueue;
    this.queue = [];
    this.contentQueue = [];
    try {
      this.insertBatch(rows, content);
      if (this.failing) this.log(`Usage rows are being saved again (${rows.length} written).`);
      this.failing = false;
    } catch (error) {
      // A locked or full database must not take the router down or lose rows: keep them and retry.
      this.queue = rows.concat(this.queue);
      this.contentQueue = content.concat(this.contentQueue);
      if (this.queue.length > MAX_PENDING_ROWS) {
        const dropped = this.queue.length - MAX_PENDING_ROWS;
        this.queue.splice(0, dropped);
        this.log(`Dropped the ${dropped} oldest unsaved usage rows: the database has refused writes for too long.`);
      }
      if (!this.failing) this.log(`Cannot save usage rows yet (${(error as Error).message}); ${this.queue.length} kept in memory, retrying every ${RETRY_AFTER_FAILURE_MS / 1000} s.`);
      this.failing = true;
      this.timer = setTimeout(() => this.flush(), RETRY_AFTER_FAILURE_MS);
      this.timer.unref();
    }
  }

  /** One key's tokens and cost since an instant (the caps' starting point at start-up). */
  keyTotalsSince(keyId: string, fromMs: number): { tokens: number; usd: number } {
    this.flush();
    const row = this.db
      .prepare('SELECT coalesce(sum(total_tokens), 0) AS tokens, coalesce(sum(cost_usd), 0) AS usd FROM usage WHERE key_id = ? AND ts >= ?')
      .get(keyId, fromMs) as { tokens: number; usd: number };
    return row;
  }

  /** Totals grouped by key, provider, model (provider/model) or UTC day. */
  totalsBy(groupBy: 'key' | 'provider' | 'model' | 'day', fromMs: number, toMs: number): (Omit<UsageTotalsRow, 'provider' | 'model'> & { group: string | null })[] {
    this.flush();
    const expression = {
      key: 'key_id',
      provider: 'provider',
      model: "provider || '/' || model",
      day: "strftime('%Y-%m-%d', ts / 1000, 'unixepoch')",
    }[groupBy];
    return this.db
      .prepare(
        `SELECT ${expression} AS "group", count(*) AS requests, sum(status >= 400) AS errors,
                sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
                sum(total_tokens) AS total_tokens, sum(cost_usd) AS cost_usd
           FROM usage WHERE ts >= ? AND ts < ? GROUP BY 1 ORDER BY ${groupBy === 'day' ? '1' : 'cost_usd DESC, requests DESC'}`,
      )
      .all(fromMs, toMs) as (Omit<UsageTotalsRow, 'provider' | 'model'> & { group: string | null })[];
  }

  /** Rows between two instants, newest first. */
  rows(fromMs: number, toMs: number, limit = 1000): Record<string, unknown>[] {
    this.flush();
    return (
      this.db.prepare('SELECT * FROM usage WHERE ts >= ? AND ts < ? ORDER BY ts DESC, id DESC LIMIT ?').all(fromMs, toMs, limit) as Record<string, unknown>[]
    ).map((row) => ({ ...row, stream: row.stream === 1, attempts: JSON.parse(row.attempts as string) }));
  }
}

/** A row's values in the column order of the INSERT statements (positional: binding by name costs a lookup per column). */
function pushRow(values: unknown[], r: UsageRecord): void {
  values.push(
    r.ts, r.requestId, r.keyId, r.endpoint, r.requestedModel, r.provider, r.model, r.strategy, r.status, r.errorType,
    r.stream ? 1 : 0, r.promptTokens, r.completionTokens, r.totalTokens, r.inputPrice, r.outputPrice, r.costUsd, r.latencyMs, r.firstByteMs,
    JSON.stringify(r.attempts),
  );
}

/** The first instant of a UTC month and of the month after it; `month` is YYYY-MM. */
export function monthRange(month: string): { from: number; to: number } {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month);
  if (!match) throw new RangeError(`Month must look like 2026-11, not "${month}"`);
  const year = Number(match[1]);
  const monthIndex = Number(match[2]) - 1;
  return { from: Date.UTC(year, monthIndex, 1), to: Date.UTC(year, monthIndex + 1, 1) };
}

export function currentMonth(now = Date.now()): string {
  return new Date(now).toISOString().slice(0, 7);
}
