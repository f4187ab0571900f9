import { BREAKDOWN_ROLLUPS, LATENCY_BUCKET, SESSION_CLASSES_ROLLUP } from '../sqlite/breakdown-rollups.ts';
import type { PatchbayDatabase } from '../sqlite/open-database.ts';

const SUMS = `count(*), sum(status >= 400), sum(prompt_tokens), sum(completion_tokens), sum(total_tokens), sum(cost_usd)`;
const ADD_SUMS = `requests = requests + excluded.requests, errors = errors + excluded.errors,
  prompt_tokens = prompt_tokens + excluded.prompt_tokens, completion_tokens = completion_tokens + excluded.completion_tokens,
  total_tokens = total_tokens + excluded.total_tokens, cost_usd = cost_usd + excluded.cost_usd`;

function sumsInto(table: string, unitExpression: string, dimensions: string[]): string {
  return `INSERT INTO ${table}
    SELECT ${unitExpression}, ${dimensions.map((d) => `coalesce(${d}, '')`).join(', ')}, ${SUMS}
      FROM usage WHERE id > ? GROUP BY ${dimensions.map((_, i) => i + 1).concat(dimensions.length + 1).join(', ')}
    ON CONFLICT DO UPDATE SET ${ADD_SUMS}`;
}

/**
 * Adds the usage rows with an id above a given one to the rollup tables (created by migration 5):
 * one grouped UPSERT per rollup table, over the rows just inserted. Run once per committed batch,
 * in the batch's transaction, so a crash can never leave rows counted in the usage table but not
 * in the rollups (or the reverse). A batch under load has hundreds of rows and a handful of
 * (hour, provider, model) and key groups, so this is a few rows written per batch instead of five
 * UPSERTs per row, as the trigger it replaces did (the writer's CPU per row: 43 µs with the
 * trigger and the request-log indexes, bench/writer-cost.ts).
 */
export const ROLLUP_STATEMENTS: readonly string[] = [
  sumsInto('usage_daily', 'ts / 86400000', ['provider', 'model']),
  sumsInto('usage_daily_keys', 'ts / 86400000', ['key_id']),
  sumsInto('usage_hourly', 'ts / 3600000', ['provider', 'model']),
  sumsInto('usage_hourly_keys', 'ts / 3600000', ['key_id']),
  `INSERT INTO usage_latency_daily
     SELECT ts / 86400000, provider, ${LATENCY_BUCKET}, count(*)
       FROM usage WHERE id > ? AND status < 400 AND provider IS NOT NULL GROUP BY 1, 2, 3
   ON CONFLICT DO UPDATE SET requests = requests + excluded.requests`,
  `INSERT INTO usage_sessions
     SELECT session_id, coalesce(agent_id, ''), ts / 86400000, coalesce(provider, ''), coalesce(model, ''), coalesce(key_id, ''),
            coalesce(max(parent_agent_id), ''), coalesce(max(session_source), ''), min(ts), max(ts), count(*), sum(status >= 400),
            sum(prompt_tokens), sum(completion_tokens), sum(cache_read_tokens), sum(cache_write_5m_tokens + cache_write_1h_tokens), sum(cost_usd), sum(cache_saved_usd)
       FROM usage WHERE id > ? AND session_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6
   ON CONFLICT DO UPDATE SET first_ts = min(first_ts, excluded.first_ts), last_ts = max(last_ts, excluded.last_ts),
     parent_agent_id = CASE WHEN parent_agent_id = '' THEN excluded.parent_agent_id ELSE parent_agent_id END,
     requests = requests + excluded.requests, errors = errors + excluded.errors, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
     completion_tokens = completion_tokens + excluded.completion_tokens, cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
     cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens, cost_usd = cost_usd + excluded.cost_usd, cache_saved_usd = cache_saved_usd + excluded.cache_saved_usd`,
  SESSION_CLASSES_ROLLUP,
  ...BREAKDOWN_ROLLUPS,
];

/** Prepared once per connection: `lastId()` before a batch's inserts, `addAfter(id)` after them (same transaction). */
export function prepareRollups(db: PatchbayDatabase): { lastId: () => number; addAfter: (id: number) => void } {
  const lastId = db.prepare('SELECT coalesce(max(id), 0) FROM usage').pluck();
  const statements = ROLLUP_STATEMENTS.map((sql) => db.prepare(sql));
  return {
    lastId: () => lastId.get() as number,
    addAfter: (id) => {
      for (const statement of statements) statement.run(id);
    },
  };
}
