// The Usage page's rollup statements live beside the schema, below core/usage: the migration that
// creates their tables fills them with these statements, and the usage writer runs them per batch.

/** Latency histogram bucket of a latency in ms: 8 per doubling, bucket 0 up to 1 ms (as migration 5 defines it). */
export const LATENCY_BUCKET = 'CAST(ceil(log2(max(latency_ms, 1)) * 8) AS INTEGER)';

const BREAKDOWN_SUMS = `count(*), sum(status >= 400), sum(prompt_tokens), sum(completion_tokens), sum(cache_read_tokens), sum(cost_usd)`;
const BREAKDOWN_BUCKET = `CASE WHEN status < 400 THEN ${LATENCY_BUCKET} ELSE -1 END`;
const ADD_BREAKDOWN = `requests = requests + excluded.requests, errors = errors + excluded.errors, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
  completion_tokens = completion_tokens + excluded.completion_tokens, cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens, cost_usd = cost_usd + excluded.cost_usd`;

/** A session's sums (a session is its key's) per request class and day (the Sessions page's cost per class); also run by the migration that creates its table. */
export const SESSION_CLASSES_ROLLUP = `INSERT INTO usage_session_classes
     SELECT session_id, coalesce(key_id, ''), coalesce(request_class, ''), ts / 86400000, count(*), sum(status >= 400), sum(prompt_tokens), sum(completion_tokens), sum(cost_usd)
       FROM usage WHERE id > ? AND session_id IS NOT NULL GROUP BY 1, 2, 3, 4
   ON CONFLICT DO UPDATE SET requests = requests + excluded.requests, errors = errors + excluded.errors, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
     completion_tokens = completion_tokens + excluded.completion_tokens, cost_usd = cost_usd + excluded.cost_usd`;

/**
 * The Usage page's tables (usage_breakdown_daily, usage_failed_attempts_daily): per day, per
 * provider/model and per key, with a latency bucket; and failed attempts per provider/model, read
 * from the attempts of only the rows that failed or tried more than once. Also run by the migration
 * that creates them, over every row (`id > ?` replaced).
 */
export const BREAKDOWN_ROLLUPS: readonly string[] = [
  `INSERT INTO usage_breakdown_daily
     SELECT ts / 86400000, 'model', CASE WHEN model IS NULL THEN '' ELSE coalesce(provider, '') || '/' || model END, ${BREAKDOWN_BUCKET}, ${BREAKDOWN_SUMS}
       FROM usage WHERE id > ? GROUP BY 1, 3, 4
   ON CONFLICT DO UPDATE SET ${ADD_BREAKDOWN}`,
  `INSERT INTO usage_breakdown_daily
     SELECT ts / 86400000, 'key', coalesce(key_id, ''), ${BREAKDOWN_BUCKET}, ${BREAKDOWN_SUMS}
       FROM usage WHERE id > ? GROUP BY 1, 3, 4
   ON CONFLICT DO UPDATE SET ${ADD_BREAKDOWN}`,
  `INSERT INTO usage_failed_attempts_daily
     SELECT u.ts / 86400000, json_extract(a.value, '$.provider'), json_extract(a.value, '$.model'), count(*)
       FROM usage u, json_each(u.attempts) a
      WHERE u.id > ? AND (u.status >= 400 OR instr(u.attempts, '},{') > 0)
        AND json_extract(a.value, '$.status') != 200 AND coalesce(json_extract(a.value, '$.error_type'), '') != 'cancelled'
      GROUP BY 1, 2, 3
   ON CONFLICT DO UPDATE SET failures = failures + excluded.failures`,
];
