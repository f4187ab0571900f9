// Latency percentiles from the log-scale histograms both backends keep in their rollups.
import type { LatencyRow } from './usage-views.ts';

const DAY_MS = 86_400_000;
/** Latency histogram buckets per doubling (see the migration that creates usage_latency_daily). */
const BUCKETS_PER_DOUBLING = 8;

/** Per day and provider: the request and error counts joined with the p50/p95 latency buckets (both backends compute these two lists in SQL). */
export function toLatencyRows(
  counts: { day: number; provider: string; requests: number; errors: number }[],
  percentiles: { day: number; provider: string; p50: number; p95: number }[],
): LatencyRow[] {
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

/** The latency a histogram bucket reports: its upper bound, so a percentile is never understated. */
export function bucketUpperBound(bucket: number): number {
  return Math.round(2 ** (bucket / BUCKETS_PER_DOUBLING) * 100) / 100;
}
