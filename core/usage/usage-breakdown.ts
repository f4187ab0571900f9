import type { PatchbayDatabase } from './open-database.ts';
import { bucketUpperBound, type UsageRange } from './usage-queries.ts';

export type BreakdownGroup = 'model' | 'provider' | 'key';

/** One line of the Usage page's tables: a model, provider or key over the chosen range. */
export interface BreakdownRow {
  /** "provider/model", the provider, or the key id; null for requests refused before any provider was tried. */
  group: string | null;
  /** The key's name (grouped by key; null otherwise or for requests without a key). */
  key_name: string | null;
  /** Requests it answered (refused ones, for the null group). */
  requests: number;
  /**
   * Per model and provider: its failed attempts, those a fallback rescued included. Per key, and for
   * requests refused before routing: failed requests.
   */
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** The part of prompt_tokens read from the provider's prompt cache. */
  cache_read_tokens: number;
  cost_usd: number;
  /** Over successful requests, from a log-scale histogram (exact to one bucket, ~9 %); null without one. */
  p50_ms: number | null;
  p95_ms: number | null;
}

export interface UsageBreakdown {
  group_by: BreakdownGroup;
  data: BreakdownRow[];
}

const GROUP_EXPRESSION: Record<BreakdownGroup, string> = {
  model: "CASE WHEN model IS NULL THEN NULL ELSE provider || '/' || model END",
  provider: 'provider',
  key: 'key_id',
};

/**
 * Totals and latency percentiles per model, provider or key over a range. It reads the usage table
 * through its ts index (the rollups keep neither cached tokens nor latency per model), one grouped
 * pass that returns one row per group and latency bucket: the percentiles are folded here from
 * those histograms, so no latency list is ever held in memory.
 */
export function usageBreakdown(db: PatchbayDatabase, range: UsageRange, groupBy: BreakdownGroup): UsageBreakdown {
  const rows = db
    .prepare(
      `SELECT ${GROUP_EXPRESSION[groupBy]} AS g,
              CASE WHEN status < 400 THEN CAST(ceil(log2(max(latency_ms, 1)) * 8) AS INTEGER) END AS bucket,
              count(*) AS requests, sum(status >= 400) AS errors, sum(prompt_tokens) AS prompt_tokens,
              sum(completion_tokens) AS completion_tokens, sum(cache_read_tokens) AS cache_read_tokens, sum(cost_usd) AS cost_usd
         FROM usage WHERE ts >= ? AND ts < ? GROUP BY 1, 2 ORDER BY 1, 2`,
    )
    .all(range.from, range.to) as { g: string | null; bucket: number | null; requests: number; errors: number; prompt_tokens: number; completion_tokens: number; cache_read_tokens: number; cost_usd: number }[];
  const names = groupBy === 'key' ? new Map((db.prepare('SELECT id, name FROM api_keys').all() as { id: string; name: string }[]).map((k) => [k.id, k.name])) : null;
  const groups = new Map<string | null, { row: BreakdownRow; histogram: [number, number][] }>();
  for (const r of rows) {
    let entry = groups.get(r.g);
    if (!entry) {
      entry = {
        row: { group: r.g, key_name: r.g === null ? null : (names?.get(r.g) ?? null), requests: 0, errors: 0, prompt_tokens: 0, completion_tokens: 0, cache_read_tokens: 0, cost_usd: 0, p50_ms: null, p95_ms: null },
        histogram: [],
      };
      groups.set(r.g, entry);
    }
    const row = entry.row;
    row.requests += r.requests;
    row.errors += r.errors;
    row.prompt_tokens += r.prompt_tokens;
    row.completion_tokens += r.completion_tokens;
    row.cache_read_tokens += r.cache_read_tokens;
    row.cost_usd += r.cost_usd;
    if (r.bucket !== null) entry.histogram.push([r.bucket, r.requests]);
  }
  // Per model and provider, errors are the failed attempts against it, whether or not a fallback
  // rescued the request: a provider that failed every attempt it was given has a line of its own.
  if (groupBy !== 'key') {
    const attemptGroup = groupBy === 'model' ? "json_extract(a.value, '$.provider') || '/' || json_extract(a.value, '$.model')" : "json_extract(a.value, '$.provider')";
    const failed = db
      .prepare(
        `SELECT ${attemptGroup} AS g, count(*) AS failed FROM usage u, json_each(u.attempts) a
          WHERE u.ts >= ? AND u.ts < ? AND json_extract(a.value, '$.status') != 200 AND coalesce(json_extract(a.value, '$.error_type'), '') != 'cancelled'
          GROUP BY 1`,
      )
      .all(range.from, range.to) as { g: string; failed: number }[];
    const failedBy = new Map(failed.map((f) => [f.g, f.failed]));
    for (const [group, entry] of groups) if (group !== null) entry.row.errors = failedBy.get(group) ?? 0;
    for (const { g, failed: count } of failed) {
      if (groups.has(g)) continue;
      groups.set(g, { row: { group: g, key_name: null, requests: 0, errors: count, prompt_tokens: 0, completion_tokens: 0, cache_read_tokens: 0, cost_usd: 0, p50_ms: null, p95_ms: null }, histogram: [] });
    }
  }
  const data = [...groups.values()].map(({ row, histogram }) => ({ ...row, p50_ms: percentile(histogram, 0.5), p95_ms: percentile(histogram, 0.95) }));
  data.sort((a, b) => b.cost_usd - a.cost_usd || b.requests - a.requests);
  return { group_by: groupBy, data };
}

/** Nearest rank over an ascending histogram of [bucket, count]: the first bucket whose running count reaches p × n. */
function percentile(histogram: [number, number][], p: number): number | null {
  const n = histogram.reduce((sum, [, count]) => sum + count, 0);
  if (n === 0) return null;
  const rank = Math.max(1, Math.ceil(p * n));
  let seen = 0;
  for (const [bucket, count] of histogram) {
    seen += count;
    if (seen >= rank) return bucketUpperBound(bucket);
  }
  return null;
}
