import type { PatchbayDatabase } from '../sqlite/open-database.ts';
import { bucketUpperBound } from './latency-percentiles.ts';
import type { UsageRange } from './usage-backend.ts';
import type { BreakdownGroup, BreakdownRow, UsageBreakdown } from './usage-views.ts';

const DAY_MS = 86_400_000;

interface Entry {
  row: BreakdownRow;
  histogram: Map<number, number>;
}

/**
 * Totals and latency percentiles per model, provider or key over a range, from the daily breakdown
 * rollups (usage_breakdown_daily, usage_failed_attempts_daily): their size grows with the days and
 * groups, not with the requests, so the page costs the request thread nothing noticeable. A
 * provider's line folds its models' lines (bucket by bucket, so its percentiles stay exact to a bucket).
 */
export function usageBreakdown(db: PatchbayDatabase, range: UsageRange, groupBy: BreakdownGroup): UsageBreakdown {
  const days = breakdownDays(range);
  const rows = db
    .prepare(
      `SELECT grp, bucket, sum(requests) AS requests, sum(errors) AS errors, sum(prompt_tokens) AS prompt_tokens,
              sum(completion_tokens) AS completion_tokens, sum(cache_read_tokens) AS cache_read_tokens, sum(cost_usd) AS cost_usd
         FROM usage_breakdown_daily WHERE day >= ? AND day < ? AND kind = ? GROUP BY 1, 2 ORDER BY 1, 2`,
    )
    .all(...days, breakdownKind(groupBy)) as BreakdownRollupRow[];
  const names = groupBy === 'key' ? (db.prepare('SELECT id, name FROM api_keys').all() as { id: string; name: string }[]) : [];
  const failed =
    groupBy === 'key'
      ? []
      : (db.prepare(`SELECT provider, model, sum(failures) AS failures FROM usage_failed_attempts_daily WHERE day >= ? AND day < ? GROUP BY 1, 2`).all(...days) as FailedAttemptsRow[]);
  return foldBreakdown(groupBy, rows, names, failed);
}

/** The days of a range as the breakdown rollups count them, and the rollup's kind for a grouping. */
export const breakdownDays = (range: UsageRange): [number, number] => [range.from / DAY_MS, range.to / DAY_MS];
export const breakdownKind = (groupBy: BreakdownGroup): 'key' | 'model' => (groupBy === 'key' ? 'key' : 'model');

/** usage_breakdown_daily summed over the range's days, per group and latency bucket. */
export type BreakdownRollupRow = { grp: string; bucket: number } & Pick<BreakdownRow, 'requests' | 'errors' | 'prompt_tokens' | 'completion_tokens' | 'cache_read_tokens' | 'cost_usd'>;

/** usage_failed_attempts_daily summed over the range's days (not read per key). */
export interface FailedAttemptsRow {
  provider: string;
  model: string;
  failures: number;
}

/**
 * The tables from the rollups' rows (both backends read the same rollups): a provider's line folds
 * its models' lines, bucket by bucket, so its percentiles stay exact to a bucket.
 */
export function foldBreakdown(groupBy: BreakdownGroup, rows: BreakdownRollupRow[], keys: { id: string; name: string }[], failed: FailedAttemptsRow[]): UsageBreakdown {
  const names = new Map(keys.map((k) => [k.id, k.name]));
  const groupOf = (grp: string): string | null => (grp === '' ? null : groupBy === 'provider' ? grp.slice(0, grp.indexOf('/')) || null : grp);
  const groups = new Map<string | null, Entry>();
  const entry = (group: string | null): Entry => {
    let found = groups.get(group);
    if (!found) {
      const key_name = groupBy === 'key' && group !== null ? (names.get(group) ?? null) : null;
      found = { row: { group, key_name, requests: 0, errors: 0, prompt_tokens: 0, completion_tokens: 0, cache_read_tokens: 0, cost_usd: 0, p50_ms: null, p95_ms: null }, histogram: new Map() };
      groups.set(group, found);
    }
    return found;
  };
  for (const r of rows) {
    const { row, histogram } = entry(groupOf(r.grp));
    row.requests += r.requests;
    row.errors += r.errors;
    row.prompt_tokens += r.prompt_tokens;
    row.completion_tokens += r.completion_tokens;
    row.cache_read_tokens += r.cache_read_tokens;
    row.cost_usd += r.cost_usd;
    if (r.bucket >= 0) histogram.set(r.bucket, (histogram.get(r.bucket) ?? 0) + r.requests);
  }
  // Per model and provider, errors are the failed attempts against it, whether or not a fallback
  // rescued the request: a provider that failed every attempt it was given has a line of its own.
  if (groupBy !== 'key') {
    for (const group of groups.keys()) if (group !== null) groups.get(group)!.row.errors = 0;
    for (const f of failed) entry(groupBy === 'provider' ? f.provider : `${f.provider}/${f.model}`).row.errors += f.failures;
  }
  const data = [...groups.values()].map(({ row, histogram }) => {
    const sorted = [...histogram].sort((a, b) => a[0] - b[0]);
    return { ...row, p50_ms: percentile(sorted, 0.5), p95_ms: percentile(sorted, 0.95) };
  });
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
