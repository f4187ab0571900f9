import type { Statement } from 'better-sqlite3';
import type { PatchbayDatabase } from './open-database.ts';
import { storedToRequestRow, type StoredUsageRow } from './to-request-row.ts';
import type { LatencyRow, RequestLogPage, RequestRow, SeriesBucket, SeriesGroup, UsageSeries, UsageTotals } from './usage-views.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Latency histogram buckets per doubling (see the migration that creates usage_latency_daily). */
const BUCKETS_PER_DOUBLING = 8;

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
}

const SUMS = `coalesce(sum(requests), 0) AS requests, coalesce(sum(errors), 0) AS errors, coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
  coalesce(sum(completion_tokens), 0) AS completion_tokens, coalesce(sum(total_tokens), 0) AS total_tokens, coalesce(sum(cost_usd), 0) AS cost_usd`;
const ROW_COLUMNS = `u.ts, u.id, u.request_id, u.key_id, k.name AS key_name, u.endpoint, u.requested_model, u.provider, u.model, u.strategy, u.status,
  u.error_type, u.stream, u.prompt_tokens, u.completion_tokens, u.total_tokens, u.cache_read_tokens, u.cache_write_5m_tokens, u.cache_write_1h_tokens, u.reasoning_tokens, u.cost_usd, u.latency_ms, u.first_byte_ms, u.route_reason, u.attempts,
  u.session_id, u.session_source, u.agent_id, u.parent_agent_id, u.cache_saved_usd`;

/** The cursor is opaque to clients: the last row's ts and id, so rows with equal ts page correctly. */
export function encodeCursor(ts: number, id: number): string {
  return Buffer.from(`${ts}.${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { ts: number; id: number } | null {
  const match = /^(\d+)\.(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  return match ? { ts: Number(match[1]), id: Number(match[2]) } : null;
}

/** The latency a histogram bucket reports: its upper bound, so a percentile is never understated. */
export function bucketUpperBound(bucket: number): number {
  return Math.round(2 ** (bucket / BUCKETS_PER_DOUBLING) * 100) / 100;
}

const emptyToNull = (value: string): string | null => (value === '' ? null : value);

/**
 * The dashboard's usage queries. Totals, series and latency read the rollup tables (one row per
 * hour, provider, model and key; one per day, provider and latency bucket), so their cost grows
 * with the date range, not with the number of requests. The request log reads the usage table
 * through its (filter, ts) indexes, newest first.
 */
export class UsageQueries {
  private readonly db: PatchbayDatabase;
  private readonly statements = new Map<string, Statement>();

  constructor(db: PatchbayDatabase) {
    this.db = db;
  }

  /** Prepared once per distinct SQL text (the log has one per combination of filters). */
  private prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  totals(range: UsageRange): UsageTotals {
    return this.prepare(`SELECT ${SUMS} FROM usage_daily WHERE day >= ? AND day < ?`).get(range.from / DAY_MS, range.to / DAY_MS) as UsageTotals;
  }

  series(range: UsageRange, bucket: SeriesBucket, groupBy: SeriesGroup): UsageSeries {
    const unit = bucket === 'day' ? DAY_MS : HOUR_MS;
    const table = `usage_${bucket === 'day' ? 'daily' : 'hourly'}${groupBy === 'key' ? '_keys' : ''}`;
    const groupExpression = { provider: 'provider', model: "CASE WHEN model = '' THEN '' ELSE provider || '/' || model END", key: 'key_id' }[groupBy];
    const rows = this.prepare(
      `SELECT ${bucket} AS b, ${groupExpression} AS g, ${SUMS} FROM ${table} WHERE ${bucket} >= ? AND ${bucket} < ?
        GROUP BY b, g ORDER BY b, cost_usd DESC, requests DESC, g`,
    ).all(range.from / unit, range.to / unit) as ({ b: number; g: string } & UsageTotals)[];
    const names = groupBy === 'key' ? new Map((this.prepare('SELECT id, name FROM api_keys').all() as { id: string; name: string }[]).map((k) => [k.id, k.name])) : null;
    const width = bucket === 'day' ? 10 : 13;
    return {
      bucket,
      group_by: groupBy,
      data: rows.map(({ b, g, ...sums }) => ({
        bucket: new Date(b * unit).toISOString().slice(0, width),
        group: emptyToNull(g),
        key_name: names?.get(g) ?? null,
        ...sums,
      })),
    };
  }

  latency(range: UsageRange): LatencyRow[] {
    const days = [range.from / DAY_MS, range.to / DAY_MS];
    const counts = this.prepare(
      `SELECT day, provider, sum(requests) AS requests, sum(errors) AS errors FROM usage_daily
        WHERE day >= ? AND day < ? AND provider != '' GROUP BY 1, 2 ORDER BY 1, 2`,
    ).all(...days) as { day: number; provider: string; requests: number; errors: number }[];
    // The nearest-rank percentile is the first bucket whose running count reaches p × n: computed in
    // SQLite over the histogram, so only one row per day and provider comes back.
    const percentiles = this.prepare(
      `SELECT day, provider, min(CASE WHEN seen >= max(1, ceil(0.5 * n)) THEN bucket END) AS p50,
              min(CASE WHEN seen >= max(1, ceil(0.95 * n)) THEN bucket END) AS p95
         FROM (SELECT day, provider, bucket,
                      sum(requests) OVER (PARTITION BY day, provider ORDER BY bucket) AS seen,
                      sum(requests) OVER (PARTITION BY day, provider) AS n
                 FROM usage_latency_daily WHERE day >= ? AND day < ?)
        GROUP BY day, provider`,
    ).all(...days) as { day: number; provider: string; p50: number; p95: number }[];
    const byDayProvider = new Map(percentiles.map((row) => [`${row.day}|${row.provider}`, row]));
    return counts.map((row) => {
      const p = byDayProvider.get(`${row.day}|${row.provider}`);
      return {
        day: new Date(row.day * DAY_MS).toISOString().slice(0, 10),
        provider: row.provider,
        requests: row.requests,
        errors: row.errors,
        error_rate: row.requests ? row.errors / row.requests : 0,
        p50_ms: p ? bucketUpperBound(p.p50) : null,
        p95_ms: p ? bucketUpperBound(p.p95) : null,
      };
    });
  }

  /** Newest first; `cursor` continues after the last row of the previous page. */
  log(range: UsageRange, filter: LogFilter, limit: number, cursor: { ts: number; id: number } | null): RequestLogPage {
    const where = ['u.ts >= @from', 'u.ts < @to'];
    const params: Record<string, string | number> = { from: range.from, to: range.to, limit: limit + 1 };
    if (cursor) {
      // The first term bounds the index range; the second orders rows of equal ts by id.
      where.push('u.ts <= @cursorTs', '(u.ts < @cursorTs OR u.id < @cursorId)');
      params.cursorTs = cursor.ts;
      params.cursorId = cursor.id;
    }
    if (filter.status === 'ok') where.push('u.status < 400');
    else if (filter.status === 'error') where.push('u.status >= 400');
    else if (filter.status !== undefined) {
      where.push('u.status = @status');
      params.status = filter.status;
    }
    if (filter.model !== undefined) {
      where.push('u.model = @model');
      params.model = filter.model;
    }
    if (filter.provider !== undefined) {
      where.push('u.provider = @provider');
      params.provider = filter.provider;
    }
    if (filter.keyId !== undefined) {
      where.push('u.key_id = @keyId');
      params.keyId = filter.keyId;
    }
    const rows = this.prepare(
      `SELECT ${ROW_COLUMNS} FROM usage u LEFT JOIN api_keys k ON k.id = u.key_id WHERE ${where.join(' AND ')} ORDER BY u.ts DESC, u.id DESC LIMIT @limit`,
    ).all(params) as (StoredUsageRow & { id: number })[];
    const more = rows.length > limit;
    if (more) rows.pop();
    const last = rows[rows.length - 1];
    return { data: rows.map(storedToRequestRow), next_cursor: more ? encodeCursor(last.ts, last.id) : null };
  }

  request(requestId: string): RequestRow | null {
    const row = this.prepare(`SELECT ${ROW_COLUMNS} FROM usage u LEFT JOIN api_keys k ON k.id = u.key_id WHERE u.request_id = ? ORDER BY u.id DESC LIMIT 1`).get(requestId) as
      | StoredUsageRow
      | undefined;
    return row ? storedToRequestRow(row) : null;
  }
}
