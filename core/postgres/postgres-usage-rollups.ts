// The usage rollups in PostgreSQL's dialect, the same tables and sums as SQLite's (core/usage/usage-rollups.ts).
// Each statement adds the rows of a source relation (`ins`: the batch just inserted, in the batch's
// statement; `usage`: every row, in the migration that creates a table) grouped and in key order,
// so replicas updating the same rollup rows lock them in the same order.

/** Latency histogram bucket of a latency in ms: 8 per doubling, bucket 0 up to 1 ms (as SQLite's). */
export const LATENCY_BUCKET = 'CAST(ceil(log(2, greatest(latency_ms, 1)::numeric) * 8) AS integer)';

const SUMS = 'count(*), count(*) FILTER (WHERE status >= 400), sum(prompt_tokens), sum(completion_tokens), sum(total_tokens), sum(cost_usd)';
const ADD_SUMS = `requests = t.requests + excluded.requests, errors = t.errors + excluded.errors,
  prompt_tokens = t.prompt_tokens + excluded.prompt_tokens, completion_tokens = t.completion_tokens + excluded.completion_tokens,
  total_tokens = t.total_tokens + excluded.total_tokens, cost_usd = t.cost_usd + excluded.cost_usd`;
const ordinals = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i).join(', ');

/** Totals per day or hour and dimensions (usage_daily, usage_hourly and their _keys tables). */
export const sumsInto = (source: string, table: string, unit: string, divisor: number, dimensions: string[]): string =>
  `INSERT INTO ${table} AS t
     SELECT ts / ${divisor}, ${dimensions.map((d) => `coalesce(${d}, '')`).join(', ')}, ${SUMS} FROM ${source}
      GROUP BY ${ordinals(1, dimensions.length + 1)} ORDER BY ${ordinals(1, dimensions.length + 1)}
     ON CONFLICT (${unit}, ${dimensions.join(', ')}) DO UPDATE SET ${ADD_SUMS}`;

export const latencyInto = (source: string): string =>
  `INSERT INTO usage_latency_daily AS t
     SELECT ts / 86400000, provider, ${LATENCY_BUCKET}, count(*) FROM ${source} WHERE status < 400 AND provider IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
     ON CONFLICT (day, provider, bucket) DO UPDATE SET requests = t.requests + excluded.requests`;

/** A session's rows per agent, day, provider, model and key (the Sessions page). */
export const sessionsInto = (source: string): string =>
  `INSERT INTO usage_sessions AS t
     SELECT session_id, coalesce(agent_id, ''), ts / 86400000, coalesce(provider, ''), coalesce(model, ''), coalesce(key_id, ''),
            coalesce(max(parent_agent_id COLLATE "C"), ''), coalesce(max(session_source COLLATE "C"), ''), min(ts), max(ts), count(*),
            count(*) FILTER (WHERE status >= 400), sum(prompt_tokens), sum(completion_tokens), sum(cache_read_tokens),
            sum(cache_write_5m_tokens + cache_write_1h_tokens), sum(cost_usd), sum(cache_saved_usd)
       FROM ${source} WHERE session_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6
   ON CONFLICT (session_id, agent_id, day, provider, model, key_id) DO UPDATE SET
     first_ts = least(t.first_ts, excluded.first_ts), last_ts = greatest(t.last_ts, excluded.last_ts),
     parent_agent_id = CASE WHEN t.parent_agent_id = '' THEN excluded.parent_agent_id ELSE t.parent_agent_id END,
     requests = t.requests + excluded.requests, errors = t.errors + excluded.errors, prompt_tokens = t.prompt_tokens + excluded.prompt_tokens,
     completion_tokens = t.completion_tokens + excluded.completion_tokens, cache_read_tokens = t.cache_read_tokens + excluded.cache_read_tokens,
     cache_write_tokens = t.cache_write_tokens + excluded.cache_write_tokens, cost_usd = t.cost_usd + excluded.cost_usd,
     cache_saved_usd = t.cache_saved_usd + excluded.cache_saved_usd`;

/** A session's rows per request class and day (the Sessions page's cost per class; SQLite's SESSION_CLASSES_ROLLUP). */
export const sessionClassesInto = (source: string): string =>
  `INSERT INTO usage_session_classes AS t
     SELECT session_id, coalesce(key_id, ''), coalesce(request_class, ''), ts / 86400000, count(*), count(*) FILTER (WHERE status >= 400),
            sum(prompt_tokens), sum(completion_tokens), sum(cost_usd)
       FROM ${source} WHERE session_id IS NOT NULL GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
   ON CONFLICT (session_id, key_id, request_class, day) DO UPDATE SET requests = t.requests + excluded.requests, errors = t.errors + excluded.errors,
     prompt_tokens = t.prompt_tokens + excluded.prompt_tokens, completion_tokens = t.completion_tokens + excluded.completion_tokens,
     cost_usd = t.cost_usd + excluded.cost_usd`;

const BREAKDOWN_SUMS = 'count(*), count(*) FILTER (WHERE status >= 400), sum(prompt_tokens), sum(completion_tokens), sum(cache_read_tokens), sum(cost_usd)';
const BREAKDOWN_BUCKET = `CASE WHEN status < 400 THEN ${LATENCY_BUCKET} ELSE -1 END`;

/**
 * The Usage page's tables: per day, per provider/model and per key, with a latency bucket (-1 for
 * failed requests); and failed attempts per provider/model, read from the attempts of only the rows
 * that failed or tried more than once (a fallback's rescued attempts count against their model).
 */
export const BREAKDOWN_ROLLUPS_FROM = (source: string): string[] => [
  `INSERT INTO usage_breakdown_daily AS t
     SELECT ts / 86400000, kind, grp, bucket, ${BREAKDOWN_SUMS}
       FROM (SELECT ts, status, prompt_tokens, completion_tokens, cache_read_tokens, cost_usd, 'model' AS kind,
                    CASE WHEN model IS NULL THEN '' ELSE coalesce(provider, '') || '/' || model END AS grp, ${BREAKDOWN_BUCKET} AS bucket FROM ${source}
             UNION ALL
             SELECT ts, status, prompt_tokens, completion_tokens, cache_read_tokens, cost_usd, 'key', coalesce(key_id, ''), ${BREAKDOWN_BUCKET} FROM ${source}) AS rows
      GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
   ON CONFLICT (day, kind, grp, bucket) DO UPDATE SET requests = t.requests + excluded.requests, errors = t.errors + excluded.errors,
     prompt_tokens = t.prompt_tokens + excluded.prompt_tokens, completion_tokens = t.completion_tokens + excluded.completion_tokens,
     cache_read_tokens = t.cache_read_tokens + excluded.cache_read_tokens, cost_usd = t.cost_usd + excluded.cost_usd`,
  `INSERT INTO usage_failed_attempts_daily AS t
     SELECT u.ts / 86400000, coalesce(a->>'provider', ''), coalesce(a->>'model', ''), count(*)
       FROM ${source} u, jsonb_array_elements(u.attempts::jsonb) a
      WHERE (u.status >= 400 OR jsonb_array_length(u.attempts::jsonb) > 1)
        AND (a->>'status')::integer <> 200 AND coalesce(a->>'error_type', '') <> 'cancelled'
      GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
   ON CONFLICT (day, provider, model) DO UPDATE SET failures = t.failures + excluded.failures`,
];
