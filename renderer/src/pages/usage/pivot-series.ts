import type { LatencyRow, SeriesPoint } from '../../api/types.ts';

export type ChartRow = { day: string } & Record<string, number | string>;

/** Series rows -> one row per day with a column per group (what a stacked bar chart draws); quiet days are zeros. */
export function pivotSeries(
  rows: SeriesPoint[],
  days: string[],
  metric: 'cost_usd' | 'total_tokens',
  label: (row: SeriesPoint) => string = (r) => r.group ?? '(none)',
): { data: ChartRow[]; groups: string[] } {
  const groups = [...new Set(rows.map(label))].sort();
  const byDay = new Map<string, ChartRow>(days.map((day) => [day, { day, ...Object.fromEntries(groups.map((g) => [g, 0])) }]));
  for (const r of rows) {
    const day = r.bucket.slice(0, 10);
    const row = byDay.get(day) ?? { day };
    const group = label(r);
    row[group] = Number(row[group] ?? 0) + r[metric];
    byDay.set(day, row);
  }
  return { data: [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day)), groups };
}

/** Latency rows -> per day, `<provider> p50`, `<provider> p95` and `<provider>` error rate columns. */
export function pivotLatency(rows: LatencyRow[], days: string[]): { data: ChartRow[]; providers: string[] } {
  const providers = [...new Set(rows.map((r) => r.provider))].sort();
  const byDay = new Map<string, ChartRow>(days.map((day) => [day, { day }]));
  for (const r of rows) {
    const row = byDay.get(r.day) ?? { day: r.day };
    if (r.p50_ms !== null) row[`${r.provider} p50`] = r.p50_ms;
    if (r.p95_ms !== null) row[`${r.provider} p95`] = r.p95_ms;
    row[`${r.provider} errors`] = r.error_rate;
    byDay.set(r.day, row);
  }
  return { data: [...byDay.values()].sort((a, b) => a.day.localeCompare(b.day)), providers };
}
