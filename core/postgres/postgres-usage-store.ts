import type pg from 'pg';
import type { EventHub } from '../events/event-hub.ts';
import { recordToRequestRow } from '../usage/to-request-row.ts';
import { USAGE_FLUSH_INTERVAL_MS, type UsageSink } from '../usage/usage-backend.ts';
import type { ContentEntry, UsageRecord } from '../usage/usage-record.ts';
import { BREAKDOWN_ROLLUPS_FROM, latencyInto, sessionClassesInto, sessionsInto, sumsInto } from './postgres-usage-rollups.ts';

const BATCH = 500;
const RETRY_AFTER_FAILURE_MS = 1000;
/** Rows kept in memory while PostgreSQL is away (about 50 MB at most); past it the oldest are dropped, logged and counted. */
export const MAX_PENDING_ROWS = 100_000;

const COLUMNS: [string, string][] = [
  ['ts', 'bigint'], ['request_id', 'text'], ['key_id', 'text'], ['endpoint', 'text'], ['requested_model', 'text'], ['provider', 'text'], ['model', 'text'],
  ['strategy', 'text'], ['status', 'integer'], ['error_type', 'text'], ['stream', 'smallint'], ['prompt_tokens', 'bigint'], ['completion_tokens', 'bigint'],
  ['total_tokens', 'bigint'], ['input_price', 'double precision'], ['output_price', 'double precision'], ['cost_usd', 'double precision'],
  ['latency_ms', 'double precision'], ['first_byte_ms', 'double precision'], ['attempts', 'text'], ['route_reason', 'text'],
  ['cache_read_tokens', 'bigint'], ['cache_write_5m_tokens', 'bigint'], ['cache_write_1h_tokens', 'bigint'], ['reasoning_tokens', 'bigint'],
  ['adjustments', 'text'], ['provider_key', 'text'], ['session_id', 'text'], ['session_source', 'text'], ['agent_id', 'text'], ['parent_agent_id', 'text'],
  ['cache_saved_usd', 'double precision'], ['error_message', 'text'], ['fallback', 'smallint'], ['price_unknown', 'smallint'], ['request_class', 'text'],
];

function toJsonRow(r: UsageRecord): Record<string, unknown> {
  return {
    ts: r.ts, request_id: r.requestId, key_id: r.keyId, endpoint: r.endpoint, requested_model: r.requestedModel, provider: r.provider, model: r.model,
    strategy: r.strategy, status: r.status, error_type: r.errorType, stream: r.stream ? 1 : 0, prompt_tokens: r.promptTokens, completion_tokens: r.completionTokens,
    total_tokens: r.totalTokens, input_price: r.inputPrice, output_price: r.outputPrice, cost_usd: r.costUsd, latency_ms: r.latencyMs, first_byte_ms: r.firstByteMs,
    attempts: JSON.stringify(r.attempts), route_reason: r.routeReason ?? null, cache_read_tokens: r.cacheReadTokens ?? 0,
    cache_write_5m_tokens: r.cacheWrite5mTokens ?? 0, cache_write_1h_tokens: r.cacheWrite1hTokens ?? 0, reasoning_tokens: r.reasoningTokens ?? 0,
    adjustments: r.adjustments ? JSON.stringify(r.adjustments) : null, provider_key: r.providerKey ?? null,
    session_id: r.sessionId ?? null, session_source: r.sessionSource ?? null, agent_id: r.agentId ?? null, parent_agent_id: r.parentAgentId ?? null,
    cache_saved_usd: r.cacheSavedUsd ?? 0, error_message: r.errorMessage ?? null, fallback: r.fallback ? 1 : 0, price_unknown: r.priceUnknown ? 1 : 0,
    request_class: r.requestClass ?? null,
  };
}

/**
 * One statement per batch: the rows go in as one JSON parameter, and the rollups are added from
 * the inserted rows in the same statement (so in the same transaction), grouped and in key order
 * so replicas updating the same rollup rows lock them in the same order.
 */
const INSERT_BATCH = `WITH ins AS (
    INSERT INTO usage (${COLUMNS.map(([c]) => c).join(', ')})
    SELECT ${COLUMNS.map(([c]) => c).join(', ')} FROM jsonb_to_recordset($1::jsonb) AS r(${COLUMNS.map(([c, t]) => `${c} ${t}`).join(', ')})
    RETURNING *),
  d1 AS (${sumsInto('ins', 'usage_daily', 'day', 86_400_000, ['provider', 'model'])}),
  d2 AS (${sumsInto('ins', 'usage_daily_keys', 'day', 86_400_000, ['key_id'])}),
  h1 AS (${sumsInto('ins', 'usage_hourly', 'hour', 3_600_000, ['provider', 'model'])}),
  h2 AS (${sumsInto('ins', 'usage_hourly_keys', 'hour', 3_600_000, ['key_id'])}),
  lat AS (${latencyInto('ins')}),
  ses AS (${sessionsInto('ins')}),
  sc AS (${sessionClassesInto('ins')}),
${BREAKDOWN_ROLLUPS_FROM('ins').map((sql, i) => `  b${i} AS (${sql})`).join(',\n')}
  SELECT count(*) AS n FROM ins`;

export interface PostgresUsageOptions {
  log: (message: string) => void;
  events?: { hub: EventHub; keyName: (keyId: string) => string | null };
}

/**
 * The usage sink on PostgreSQL: rows are queued in memory and written in batches every
 * USAGE_FLUSH_INTERVAL_MS (or at BATCH rows), one statement each, as on SQLite. While the database
 * is away the rows wait, in order, and are retried every second; past MAX_PENDING_ROWS the oldest
 * are dropped, logged and counted (`dropped`), never silently.
 */
export class PostgresUsageSink implements UsageSink {
  private readonly pool: pg.Pool;
  private readonly options: PostgresUsageOptions;
  private queue: Record<string, unknown>[] = [];
  private content: ContentEntry[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private failing = false;
  /** Rows dropped because the queue was full while the database refused writes. */
  dropped = 0;

  constructor(pool: pg.Pool, options: PostgresUsageOptions) {
    this.pool = pool;
    this.options = options;
  }

  /** Rows waiting to be written. */
  get pending(): number {
    return this.queue.length;
  }

  record(row: UsageRecord): void {
    this.queue.push(toJsonRow(row));
    const events = this.options.events;
    if (events && events.hub.listening) events.hub.emit('request', recordToRequestRow(row, row.keyId === null ? null : events.keyName(row.keyId)));
    if (this.queue.length > MAX_PENDING_ROWS) {
      const over = this.queue.length - MAX_PENDING_ROWS;
      this.queue.splice(0, over);
      this.dropped += over;
      this.options.log(`Dropped the ${over} oldest unsaved usage rows (${this.dropped} in all): PostgreSQL has refused writes for too long.`);
    }
    if (!this.failing) this.schedule(this.queue.length >= BATCH ? 0 : USAGE_FLUSH_INTERVAL_MS);
  }

  recordContent(entry: ContentEntry): void {
    this.content.push(entry);
  }

  private schedule(ms: number): void {
    if (this.timer) {
      if (ms > 0) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.write();
    }, ms);
    this.timer.unref();
  }

  /** Writes everything queued, one batch after another; one write at a time, so rows keep their order. */
  private write(): Promise<void> {
    if (this.writing) return this.writing;
    this.writing = (async () => {
      while (this.queue.length || this.content.length) {
        const rows = this.queue.slice(0, BATCH);
        const content = this.content.slice(0, BATCH);
        try {
          if (rows.length) await this.pool.query(INSERT_BATCH, [JSON.stringify(rows)]);
          for (const entry of content) {
            await this.pool.query(
              'INSERT INTO content_log (request_id, ts, request, response) VALUES ($1, $2, $3, $4) ON CONFLICT (request_id) DO UPDATE SET ts = excluded.ts, request = excluded.request, response = excluded.response',
              [entry.requestId, entry.ts, entry.request, entry.response],
            );
          }
        } catch (error) {
          if (!this.failing) this.options.log(`Cannot save usage rows yet (${(error as Error).message}); ${this.queue.length} kept in memory, retrying every ${RETRY_AFTER_FAILURE_MS / 1000} s.`);
          this.failing = true;
          this.timer ??= setTimeout(() => {
            this.timer = null;
            void this.write();
          }, RETRY_AFTER_FAILURE_MS);
          this.timer.unref();
          return;
        }
        // Rows recorded meanwhile were appended behind these: drop exactly what was written (unless dropped as overflow meanwhile).
        this.queue.splice(0, Math.min(rows.length, this.queue.length));
        this.content.splice(0, content.length);
        if (this.failing) this.options.log('Usage rows are being saved to PostgreSQL again.');
        this.failing = false;
      }
    })().finally(() => {
      this.writing = null;
    });
    return this.writing;
  }

  async flushAsync(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    await this.write();
    // A write was running when called: the rows recorded before this call may be in the next batch.
    if (this.queue.length && !this.failing) await this.write();
  }

  async close(): Promise<void> {
    await this.flushAsync();
  }
}
