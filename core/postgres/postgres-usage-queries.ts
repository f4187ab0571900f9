import type pg from 'pg';
import type { AttemptReport } from '../errors/provider-error.ts';
import { storedToRequestRow, toExportRow, type StoredUsageRow } from '../usage/to-request-row.ts';
import type { GroupTotalsRow, LogFilter, RecentAttempts, SessionCursor, UsageGroup, UsageRange } from '../usage/usage-backend.ts';
import { breakdownDays, breakdownKind, foldBreakdown, type BreakdownRollupRow, type FailedAttemptsRow } from '../usage/usage-breakdown.ts';
import { toLatencyRows } from '../usage/latency-percentiles.ts';
import { encodeCursor } from '../usage/log-cursor.ts';
import { modelMatches, ROW_COLUMNS } from '../usage/request-log-sql.ts';
import { sessionDays, toSessionPage, type SessionAgentRow, type SessionClassRow, type SessionListRow } from '../usage/session-page.ts';
import type { BreakdownGroup, LatencyRow, RequestLogPage, RequestRow, SeriesBucket, SeriesGroup, SessionPage, UsageBreakdown, UsageSeries, UsageTotals } from '../usage/usage-views.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const SUMS = `coalesce(sum(requests), 0) AS requests, coalesce(sum(errors), 0) AS errors, coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
  coalesce(sum(completion_tokens), 0) AS completion_tokens, coalesce(sum(total_tokens), 0) AS total_tokens, coalesce(sum(cost_usd), 0) AS cost_usd`;
const emptyToNull = (value: string): string | null => (value === '' ? null : value);

/**
 * The dashboard's usage queries in PostgreSQL's dialect, the same answers as SQLite's UsageQueries
 * (the contract suite holds them to it): totals, series and latency from the rollup tables, the
 * request log from the usage table through its (filter, ts) indexes.
 */
export class PostgresUsageQueries {
  private readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  private async all<T>(sql: string, values: unknown[]): Promise<T[]> {
    return (await this.pool.query(sql, values)).rows as T[];
  }

  async keyTotalsSince(keyId: string, fromMs: number): Promise<{ tokens: number; usd: number }> {
    const [row] = await this.all<{ tokens: number; usd: number }>(
      'SELECT coalesce(sum(total_tokens), 0) AS tokens, coalesce(sum(cost_usd), 0) AS usd FROM usage WHERE key_id = $1 AND ts >= $2',
      [keyId, fromMs],
    );
    return row;
  }

  totalsBy(groupBy: UsageGroup, fromMs: number, toMs: number): Promise<GroupTotalsRow[]> {
    const expression = {
      key: 'key_id',
      provider: 'provider',
      'provider-key': "provider || ' (' || coalesce(provider_key, '-') || ')'",
      model: "provider || '/' || model",
      day: "to_char(to_timestamp(ts / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
    }[groupBy];
    return this.all(
      `SELECT ${expression} AS "group", count(*) AS requests, count(*) FILTER (WHERE status >= 400) AS errors,
              sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
              sum(total_tokens) AS total_tokens, sum(cache_read_tokens) AS cache_read_tokens,
              sum(cache_write_5m_tokens + cache_write_1h_tokens) AS cache_write_tokens, sum(reasoning_tokens) AS reasoning_tokens,
              sum(cost_usd) AS cost_usd
         FROM usage WHERE ts >= $1 AND ts < $2 GROUP BY 1 ORDER BY ${groupBy === 'day' ? '1' : 'cost_usd DESC, requests DESC'}`,
      [fromMs, toMs],
    );
  }

  async totals(range: UsageRange): Promise<UsageTotals> {
    const [row] = await this.all<UsageTotals>(`SELECT ${SUMS} FROM usage_daily WHERE day >= $1 AND day < $2`, [range.from / DAY_MS, range.to / DAY_MS]);
    return row;
  }

  async series(range: UsageRange, bucket: SeriesBucket, groupBy: SeriesGroup): Promise<UsageSeries> {
    const unit = bucket === 'day' ? DAY_MS : HOUR_MS;
    const table = `usage_${bucket === 'day' ? 'daily' : 'hourly'}${groupBy === 'key' ? '_keys' : ''}`;
    const groupExpression = { provider: 'provider', model: "CASE WHEN model = '' THEN '' ELSE provider || '/' || model END", key: 'key_id' }[groupBy];
    const rows = await this.all<{ b: number; g: string } & UsageTotals>(
      `SELECT ${bucket} AS b, ${groupExpression} AS g, ${SUMS} FROM ${table} WHERE ${bucket} >= $1 AND ${bucket} < $2
        GROUP BY b, g ORDER BY b, cost_usd DESC, requests DESC, (${groupExpression}) COLLATE "C"`,
      [range.from / unit, range.to / unit],
    );
    const names = groupBy === 'key' ? new Map((await this.all<{ id: string; name: string }>('SELECT id, name FROM api_keys', [])).map((k) => [k.id, k.name])) : null;
    const width = bucket === 'day' ? 10 : 13;
    return {
      bucket,
      group_by: groupBy,
      data: rows.map(({ b, g, ...sums }) => ({ bucket: new Date(b * unit).toISOString().slice(0, width), group: emptyToNull(g), key_name: names?.get(g) ?? null, ...sums })),
    };
  }

  async latency(range: UsageRange): Promise<LatencyRow[]> {
    const days = [range.from / DAY_MS, range.to / DAY_MS];
    const counts = await this.all<{ day: number; provider: string; requests: number; errors: number }>(
      `SELECT day, provider, sum(requests) AS requests, sum(errors) AS errors FROM usage_daily
        WHERE day >= $1 AND day < $2 AND provider != '' GROUP BY 1, 2 ORDER BY day, provider COLLATE "C"`,
      days,
    );
    const percentiles = await this.all<{ day: number; provider: string; p50: number; p95: number }>(
      `SELECT day, provider, min(CASE WHEN seen >= greatest(1, ceil(0.5 * n)) THEN bucket END) AS p50,
              min(CASE WHEN seen >= greatest(1, ceil(0.95 * n)) THEN bucket END) AS p95
         FROM (SELECT day, provider, bucket,
                      sum(requests) OVER (PARTITION BY day, provider ORDER BY bucket) AS seen,
                      sum(requests) OVER (PARTITION BY day, provider) AS n
                 FROM usage_latency_daily WHERE day >= $1 AND day < $2) AS histogram
        GROUP BY day, provider`,
      days,
    );
    return toLatencyRows(counts, percentiles);
  }

  async log(range: UsageRange, filter: LogFilter, limit: number, cursor: { ts: number; id: number } | null): Promise<RequestLogPage> {
    const values: unknown[] = [range.from, range.to];
    const where = ['u.ts >= $1', 'u.ts < $2'];
    const add = (condition: (n: string) => string, value: unknown) => {
      values.push(value);
      where.push(condition(`$${values.length}`));
    };
    if (cursor) {
      add((n) => `u.ts <= ${n}`, cursor.ts);
      values.push(cursor.id);
      where.push(`(u.ts < $${values.length - 1} OR u.id < $${values.length})`);
    }
    if (filter.status === 'ok') where.push('u.status < 400');
    else if (filter.status === 'error') where.push('u.status >= 400');
    else if (filter.status !== undefined) add((n) => `u.status = ${n}`, filter.status);
    if (filter.model !== undefined) add(modelMatches, filter.model);
    if (filter.provider !== undefined) add((n) => `u.provider = ${n}`, filter.provider);
    if (filter.keyId !== undefined) add((n) => `u.key_id = ${n}`, filter.keyId);
    if (filter.session !== undefined) add((n) => `u.session_id = ${n}`, filter.session);
    values.push(limit + 1);
    const rows = await this.all<StoredUsageRow & { id: number }>(
      `SELECT ${ROW_COLUMNS} FROM usage u LEFT JOIN api_keys k ON k.id = u.key_id WHERE ${where.join(' AND ')} ORDER BY u.ts DESC, u.id DESC LIMIT $${values.length}`,
      values,
    );
    const more = rows.length > limit;
    if (more) rows.pop();
    const last = rows[rows.length - 1];
    return { data: rows.map(storedToRequestRow), next_cursor: more ? encodeCursor(last.ts, last.id) : null };
  }

  async request(requestId: string): Promise<RequestRow | null> {
    const [row] = await this.all<StoredUsageRow>(`SELECT ${ROW_COLUMNS} FROM usage u LEFT JOIN api_keys k ON k.id = u.key_id WHERE u.request_id = $1 ORDER BY u.id DESC LIMIT 1`, [requestId]);
    return row ? storedToRequestRow(row) : null;
  }

  async rows(fromMs: number, toMs: number, limit = 1000): Promise<Record<string, unknown>[]> {
    const rows = await this.all<Record<string, unknown>>('SELECT * FROM usage WHERE ts >= $1 AND ts < $2 ORDER BY ts DESC, id DESC LIMIT $3', [fromMs, toMs, limit]);
    return rows.map(toExportRow);
  }

  /** The Usage page's tables per model, provider or key (usage-breakdown.ts folds the rollups' rows, as on SQLite). */
  async breakdown(range: UsageRange, groupBy: BreakdownGroup): Promise<UsageBreakdown> {
    const days = breakdownDays(range);
    const [rows, keys, failed] = await Promise.all([
      this.all<BreakdownRollupRow>(
        `SELECT grp, bucket, sum(requests) AS requests, sum(errors) AS errors, sum(prompt_tokens) AS prompt_tokens,
                sum(completion_tokens) AS completion_tokens, sum(cache_read_tokens) AS cache_read_tokens, sum(cost_usd) AS cost_usd
           FROM usage_breakdown_daily WHERE day >= $1 AND day < $2 AND kind = $3 GROUP BY 1, 2 ORDER BY 1, 2`,
        [...days, breakdownKind(groupBy)],
      ),
      groupBy === 'key' ? this.all<{ id: string; name: string }>('SELECT id, name FROM api_keys', []) : [],
      groupBy === 'key'
        ? []
        : this.all<FailedAttemptsRow>('SELECT provider, model, sum(failures) AS failures FROM usage_failed_attempts_daily WHERE day >= $1 AND day < $2 GROUP BY 1, 2 ORDER BY 1, 2', days),
    ]);
    return foldBreakdown(groupBy, rows, keys, failed);
  }

  /**
   * Sessions active in the range, the most recently active first, from the usage_sessions rollup:
   * the same filters and order as SQLite's UsageQueries.sessions (session ids compare byte by byte,
   * the rollup's columns being COLLATE "C").
   */
  async sessions(range: UsageRange, filter: LogFilter, limit: number, cursor: SessionCursor | null): Promise<SessionPage> {
    const { fromDay, toDay } = sessionDays(range);
    const values: unknown[] = [fromDay, toDay];
    const param = (value: unknown) => {
      values.push(value);
      return `$${values.length}`;
    };
    const where = ['day >= $1', 'day < $2'];
    const having: string[] = [];
    if (filter.provider !== undefined) having.push(`count(*) FILTER (WHERE provider = ${param(filter.provider)}) > 0`);
    if (filter.model !== undefined) having.push(`count(*) FILTER (WHERE model = ${param(filter.model)}) > 0`);
    if (filter.keyId !== undefined) where.push(`key_id = ${param(filter.keyId)}`);
    if (filter.session !== undefined) where.push(`session_id = ${param(filter.session)}`);
    if (filter.status === 'error') having.push('sum(errors) > 0');
    else if (filter.status === 'ok') having.push('sum(errors) < sum(requests)');
    else if (filter.status !== undefined) {
      where.push(
        `(session_id, key_id) IN (SELECT DISTINCT session_id, coalesce(key_id, '') FROM usage WHERE status = ${param(filter.status)} AND ts >= ${param(range.from)} AND ts < ${param(range.to)} AND session_id IS NOT NULL)`,
      );
    }
    if (cursor) {
      const ts = param(cursor.ts);
      const session = param(cursor.session);
      having.push(`(max(last_ts) < ${ts} OR (max(last_ts) = ${ts} AND (session_id < ${session} OR (session_id = ${session} AND key_id < ${param(cursor.key)}))))`);
    }
    const rows = await this.all<SessionListRow>(
      `SELECT session_id, key_id, (SELECT name FROM api_keys WHERE id = key_id) AS key_name, max(source) AS client, min(first_ts) AS first, max(last_ts) AS last, sum(requests) AS requests, sum(errors) AS errors,
              sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens, sum(cache_read_tokens) AS cache_read_tokens,
              sum(cache_write_tokens) AS cache_write_tokens, sum(cost_usd) AS cost_usd, sum(cache_saved_usd) AS cache_saved_usd,
              string_agg(DISTINCT model, ',') AS models, string_agg(DISTINCT provider, ',') AS providers
         FROM usage_sessions WHERE ${where.join(' AND ')} GROUP BY session_id, key_id
         ${having.length ? `HAVING ${having.join(' AND ')}` : ''} ORDER BY last DESC, session_id DESC, key_id DESC LIMIT ${param(limit + 1)}`,
      values,
    );
    const shown = [...new Set(rows.slice(0, limit).map((r) => r.session_id))];
    const agents = shown.length === 0 ? [] : await this.all<SessionAgentRow>(
      `SELECT session_id, key_id, agent_id, max(parent_agent_id) AS parent, min(first_ts) AS first, max(last_ts) AS last, sum(requests) AS requests, sum(errors) AS errors,
              sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens, sum(cache_read_tokens) AS cache_read_tokens,
              sum(cache_write_tokens) AS cache_write_tokens, sum(cost_usd) AS cost_usd, sum(cache_saved_usd) AS cache_saved_usd
         FROM usage_sessions WHERE session_id = ANY($1::text[]) AND agent_id <> '' AND day >= $2 AND day < $3
        GROUP BY session_id, key_id, agent_id ORDER BY first, agent_id`,
      [shown, fromDay, toDay],
    );
    const classes = shown.length === 0 ? [] : await this.all<SessionClassRow>(
      `SELECT session_id, key_id, request_class, sum(requests) AS requests, sum(errors) AS errors, sum(prompt_tokens) AS prompt_tokens,
              sum(completion_tokens) AS completion_tokens, sum(cost_usd) AS cost_usd
         FROM usage_session_classes WHERE session_id = ANY($1::text[]) AND day >= $2 AND day < $3
        GROUP BY session_id, key_id, request_class`,
      [shown, fromDay, toDay],
    );
    return toSessionPage(rows, agents, limit, classes);
  }

  async recentAttempts(fromMs: number, limit = 5000): Promise<RecentAttempts[]> {
    const rows = await this.all<{ ts: number; stream: number; attempts: string }>('SELECT ts, stream, attempts FROM usage WHERE ts >= $1 ORDER BY id DESC LIMIT $2', [fromMs, limit]);
    return rows.reverse().map((row) => ({ ts: row.ts, stream: row.stream === 1, attempts: JSON.parse(row.attempts) as AttemptReport[] }));
  }
}
