import type { Statement } from 'better-sqlite3';
import type { PatchbayDatabase } from '../sqlite/open-database.ts';
import { usageBreakdown } from './usage-breakdown.ts';
import { storedToRequestRow, toExportRow, type StoredUsageRow } from './to-request-row.ts';
import type { AttemptReport } from '../errors/provider-error.ts';
import type { GroupTotalsRow, LogFilter, RecentAttempts, SessionCursor, UsageGroup, UsageRange } from './usage-backend.ts';
import { toLatencyRows } from './latency-percentiles.ts';
import { encodeCursor } from './log-cursor.ts';
import { modelMatches, ROW_COLUMNS } from './request-log-sql.ts';
import { sessionDays, toSessionPage, type SessionAgentRow, type SessionClassRow, type SessionListRow } from './session-page.ts';
import type { BreakdownGroup, LatencyRow, RequestLogPage, RequestRow, SeriesBucket, SeriesGroup, SessionPage, UsageBreakdown, UsageSeries, UsageTotals } from './usage-views.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

const SUMS = `coalesce(sum(requests), 0) AS requests, coalesce(sum(errors), 0) AS errors, coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
  coalesce(sum(completion_tokens), 0) AS completion_tokens, coalesce(sum(total_tokens), 0) AS total_tokens, coalesce(sum(cost_usd), 0) AS cost_usd`;

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

  /** One key's tokens and cost since an instant (the caps' starting point). */
  keyTotalsSince(keyId: string, fromMs: number): { tokens: number; usd: number } {
    return this.prepare('SELECT coalesce(sum(total_tokens), 0) AS tokens, coalesce(sum(cost_usd), 0) AS usd FROM usage WHERE key_id = ? AND ts >= ?').get(keyId, fromMs) as {
      tokens: number;
      usd: number;
    };
  }

  /** Totals grouped by key, provider, model (provider/model) or UTC day (`patchbay usage`). */
  totalsBy(groupBy: UsageGroup, fromMs: number, toMs: number): GroupTotalsRow[] {
    const expression = {
      key: 'key_id',
      provider: 'provider',
      'provider-key': "provider || ' (' || coalesce(provider_key, '-') || ')'",
      model: "provider || '/' || model",
      day: "strftime('%Y-%m-%d', ts / 1000, 'unixepoch')",
    }[groupBy];
    return this.prepare(
      `SELECT ${expression} AS "group", count(*) AS requests, sum(status >= 400) AS errors,
              sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
              sum(total_tokens) AS total_tokens, sum(cache_read_tokens) AS cache_read_tokens,
              sum(cache_write_5m_tokens + cache_write_1h_tokens) AS cache_write_tokens, sum(reasoning_tokens) AS reasoning_tokens,
              sum(cost_usd) AS cost_usd
         FROM usage WHERE ts >= ? AND ts < ? GROUP BY 1 ORDER BY ${groupBy === 'day' ? '1' : 'cost_usd DESC, requests DESC'}`,
    ).all(fromMs, toMs) as GroupTotalsRow[];
  }

  /** Rows between two instants, newest first (export, `patchbay usage requests`). */
  rows(fromMs: number, toMs: number, limit = 1000): Record<string, unknown>[] {
    return (this.prepare('SELECT * FROM usage WHERE ts >= ? AND ts < ? ORDER BY ts DESC, id DESC LIMIT ?').all(fromMs, toMs, limit) as Record<string, unknown>[]).map(toExportRow);
  }

  /** The latest rows' attempts since an instant, oldest first (health replayed at start). */
  recentAttempts(fromMs: number, limit = 5000): RecentAttempts[] {
    const rows = this.prepare('SELECT ts, stream, attempts FROM usage WHERE ts >= ? ORDER BY id DESC LIMIT ?').all(fromMs, limit) as { ts: number; stream: number; attempts: string }[];
    return rows.reverse().map((row) => ({ ts: row.ts, stream: row.stream === 1, attempts: JSON.parse(row.attempts) as AttemptReport[] }));
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

  /** The Usage page's tables (usage-breakdown.ts). */
  breakdown(range: UsageRange, groupBy: BreakdownGroup): UsageBreakdown {
    return usageBreakdown(this.db, range, groupBy);
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
    return toLatencyRows(counts, percentiles);
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
      // The name a user knows: the alias or id the client asked for, the provider's own model id, or provider/model.
      // A `:strategy` suffix on the asked-for name (llama-3.3-70b:cost) still matches the plain name.
      where.push(modelMatches('@model'));
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
    if (filter.session !== undefined) {
      where.push('u.session_id = @session');
      params.session = filter.session;
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

  /**
   * Sessions active in the range, the most recently active first, with their sums over the range,
   * from the usage_sessions rollup (one row per session, agent, day, provider, model and key). The
   * filters keep sessions with at least one matching request: provider, model and key from the
   * rollup; status ok/error from its error counts; an exact status from the usage table's
   * (status, ts) index. `cursor` continues after the previous page's last session.
   */
  sessions(range: UsageRange, filter: LogFilter, limit: number, cursor: SessionCursor | null): SessionPage {
    // `+day`: scanned in key order (session first), which groups without sorting; see the migration.
    const where = ['+day >= @fromDay', '+day < @toDay'];
    const params: Record<string, string | number> = { ...sessionDays(range), limit: limit + 1 };
    const having: string[] = [];
    if (filter.provider !== undefined) {
      having.push('sum(provider = @provider) > 0');
      params.provider = filter.provider;
    }
    if (filter.model !== undefined) {
      having.push('sum(model = @model) > 0');
      params.model = filter.model;
    }
    if (filter.keyId !== undefined) {
      where.push('key_id = @keyId');
      params.keyId = filter.keyId;
    }
    if (filter.session !== undefined) {
      where.push('session_id = @session');
      params.session = filter.session;
    }
    if (filter.status === 'error') having.push('sum(errors) > 0');
    else if (filter.status === 'ok') having.push('sum(errors) < sum(requests)');
    else if (filter.status !== undefined) {
      // Read from the partial (status, ts, session_id, key_id) index alone.
      where.push("(session_id, key_id) IN (SELECT DISTINCT session_id, coalesce(key_id, '') FROM usage WHERE status = @status AND ts >= @from AND ts < @to AND session_id IS NOT NULL)");
      Object.assign(params, { status: filter.status, from: range.from, to: range.to });
    }
    if (cursor) {
      having.push('(max(last_ts) < @cursorTs OR (max(last_ts) = @cursorTs AND (session_id < @cursorSession OR (session_id = @cursorSession AND key_id < @cursorKey))))');
      Object.assign(params, { cursorTs: cursor.ts, cursorSession: cursor.session, cursorKey: cursor.key });
    }
    const rows = this.prepare(
      `SELECT session_id, key_id, (SELECT name FROM api_keys WHERE id = key_id) AS key_name, max(source) AS client, min(first_ts) AS first, max(last_ts) AS last, sum(requests) AS requests, sum(errors) AS errors,
              sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens, sum(cache_read_tokens) AS cache_read_tokens,
              sum(cache_write_tokens) AS cache_write_tokens, sum(cost_usd) AS cost_usd, sum(cache_saved_usd) AS cache_saved_usd,
              group_concat(DISTINCT model) AS models, group_concat(DISTINCT provider) AS providers
         FROM usage_sessions WHERE ${where.join(' AND ')} GROUP BY session_id, key_id
         ${having.length ? `HAVING ${having.join(' AND ')}` : ''} ORDER BY last DESC, session_id DESC, key_id DESC LIMIT @limit`,
    ).all(params) as SessionListRow[];
    const shown = [...new Set(rows.slice(0, limit).map((r) => r.session_id))];
    const agents = shown.length === 0 ? [] : (this.prepare(
      `SELECT session_id, key_id, agent_id, max(parent_agent_id) AS parent, min(first_ts) AS first, max(last_ts) AS last, sum(requests) AS requests, sum(errors) AS errors,
              sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens, sum(cache_read_tokens) AS cache_read_tokens,
              sum(cache_write_tokens) AS cache_write_tokens, sum(cost_usd) AS cost_usd, sum(cache_saved_usd) AS cache_saved_usd
         FROM usage_sessions WHERE session_id IN (SELECT value FROM json_each(?)) AND agent_id != '' AND day >= ? AND day < ?
        GROUP BY session_id, key_id, agent_id ORDER BY first, agent_id`,
    ).all(JSON.stringify(shown), params.fromDay, params.toDay) as SessionAgentRow[]);
    const classes = shown.length === 0 ? [] : (this.prepare(
      `SELECT session_id, key_id, request_class, sum(requests) AS requests, sum(errors) AS errors, sum(prompt_tokens) AS prompt_tokens,
              sum(completion_tokens) AS completion_tokens, sum(cost_usd) AS cost_usd
         FROM usage_session_classes WHERE session_id IN (SELECT value FROM json_each(?)) AND day >= ? AND day < ?
        GROUP BY session_id, key_id, request_class`,
    ).all(JSON.stringify(shown), params.fromDay, params.toDay) as SessionClassRow[]);
    return toSessionPage(rows, agents, limit, classes);
  }
}

