import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { api, toQuery } from '../../api/api-client.ts';
import { downloadFile } from '../../api/download-file.ts';
import type { LatencyRow, UsageSeries, UsageTotals } from '../../api/types.ts';
import { EmptyState, ErrorNote } from '../../components/query-state.tsx';
import { formatMs, formatPercent, formatTokens, formatUsd } from '../../format/format-numbers.ts';
import { seriesColor } from './chart-colors.ts';
import { currentMonthUtc, daysBetween, monthBounds } from './date-range.ts';
import { pivotLatency, pivotSeries } from './pivot-series.ts';

const axis = { stroke: 'var(--muted)', fontSize: 12 };
const tooltipProps = { contentStyle: { background: 'var(--surface)', border: '1px solid var(--border)', color: 'var(--text)' }, labelStyle: { color: 'var(--text)' } };

function StackedChart({ title, data, groups, format }: { title: string; data: Record<string, unknown>[]; groups: string[]; format: (n: number) => string }) {
  return (
    <figure className="card chart">
      <figcaption>{title}</figcaption>
      <ResponsiveContainer width="100%" height={240}>
        <BarChart data={data}>
          <CartesianGrid stroke="var(--border)" vertical={false} />
          <XAxis dataKey="day" tick={axis} tickFormatter={(d: string) => d.slice(8)} />
          {/* Wide enough for sub-cent amounts such as $0.0000075, which a narrower axis clipped. */}
          <YAxis tick={axis} tickFormatter={(n: number) => format(n)} width={84} />
          <Tooltip {...tooltipProps} formatter={(v) => format(Number(v))} />
          <Legend />
          {groups.map((g, i) => <Bar key={g} dataKey={g} stackId="a" fill={seriesColor(i)} isAnimationActive={false} />)}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

export default function UsagePage() {
  const [month, setMonth] = useState(currentMonthUtc());
  const [groupBy, setGroupBy] = useState<UsageSeries['group_by']>('provider');
  const { from, to } = monthBounds(month);
  const days = useMemo(() => daysBetween(from, to), [from, to]);
  const totals = useQuery({ queryKey: ['usage-totals', from, to], queryFn: () => api.get<UsageTotals>(`/usage/totals${toQuery({ from, to })}`) });
  const series = useQuery({ queryKey: ['usage-series', from, to, groupBy], queryFn: () => api.get<UsageSeries>(`/usage/series${toQuery({ from, to, bucket: 'day', group_by: groupBy })}`) });
  const latency = useQuery({ queryKey: ['usage-latency', from, to], queryFn: () => api.get<{ data: LatencyRow[] }>(`/usage/latency${toQuery({ from, to })}`) });
  const cost = useMemo(() => pivotSeries(series.data?.data ?? [], days, 'cost_usd'), [series.data, days]);
  const tokens = useMemo(() => pivotSeries(series.data?.data ?? [], days, 'total_tokens'), [series.data, days]);
  const lat = useMemo(() => pivotLatency(latency.data?.data ?? [], days), [latency.data, days]);
  const t = totals.data;
  const [exportError, setExportError] = useState<Error | null>(null);
  const exportUsage = (format: 'csv' | 'json') => {
    setExportError(null);
    downloadFile(`/usage/export${toQuery({ format, month })}`, `patchbay-usage-${month}.${format}`).catch((error: Error) => setExportError(error));
  };

  return (
    <>
      <h1>Usage</h1>
      <div className="row wrap toolbar">
        <label>Month<input type="month" value={month} onChange={(e) => e.target.value && setMonth(e.target.value)} /></label>
        <fieldset className="segmented">
          <legend className="visually-hidden">Break down by</legend>
          {(['provider', 'model', 'key'] as const).map((g) => (
            <label key={g} className={groupBy === g ? 'on' : undefined}><input type="radio" name="group" value={g} checked={groupBy === g} onChange={() => setGroupBy(g)} /> by {g}</label>
          ))}
        </fieldset>
        <span className="push-right">Export:</span>
        {(['csv', 'json'] as const).map((format) => (
          <button key={format} type="button" className="button small" onClick={() => exportUsage(format)}>{format.toUpperCase()}</button>
        ))}
      </div>
      <ErrorNote error={totals.error ?? series.error ?? latency.error ?? exportError} />
      <dl className="card stats wide">
        <div><dt>Requests</dt><dd>{formatTokens(t?.requests)}</dd></div>
        <div><dt>Errors</dt><dd>{formatTokens(t?.errors)}</dd></div>
        <div><dt>Prompt tokens</dt><dd>{formatTokens(t?.prompt_tokens)}</dd></div>
        <div><dt>Completion tokens</dt><dd>{formatTokens(t?.completion_tokens)}</dd></div>
        <div><dt>Cost</dt><dd>{formatUsd(t?.cost_usd)}</dd></div>
      </dl>
      {totals.isSuccess && t?.requests === 0 ? (
        <EmptyState title="No requests in this month">
          <p>Usage appears here once tools send requests through Patchbay. Pick another month above to look back.</p>
        </EmptyState>
      ) : (
        <>
          <div className="grid-2">
            <StackedChart title={`Cost per day by ${groupBy} (USD)`} data={cost.data} groups={cost.groups} format={formatUsd} />
            <StackedChart title={`Tokens per day by ${groupBy}`} data={tokens.data} groups={tokens.groups} format={formatTokens} />
          </div>
          <div className="grid-2">
            <figure className="card chart">
              <figcaption>Latency per provider (p50 solid, p95 dashed)</figcaption>
              <ResponsiveContainer width="100%" height={240}>
                <LineChart data={lat.data}>
                  <CartesianGrid stroke="var(--border)" vertical={false} />
                  <XAxis dataKey="day" tick={axis} tickFormatter={(d: string) => d.slice(8)} />
                  <YAxis tick={axis} tickFormatter={(n: number) => formatMs(n)} width={72} />
                  <Tooltip {...tooltipProps} formatter={(v) => formatMs(Number(v))} />
                  <Legend />
                  {lat.providers.flatMap((p, i) => [
                    <Line key={`${p}50`} dataKey={`${p} p50`} stroke={seriesColor(i)} dot={false} connectNulls isAnimationActive={false} />,
                    <Line key={`${p}95`} dataKey={`${p} p95`} stroke={seriesColor(i)} strokeDasharray="4 3" dot={false} connectNulls isAnimationActive={false} />,
                  ])}
                </LineChart>
              </ResponsiveContainer>
            </figure>
            <figure className="card chart">
              <figcaption>Error rate per provider</figcaption>
              <ResponsiveContainer width="100%" height={240}>
                <LineChart data={lat.data}>
                  <CartesianGrid stroke="var(--border)" vertical={false} />
                  <XAxis dataKey="day" tick={axis} tickFormatter={(d: string) => d.slice(8)} />
                  {/* A rate never exceeds 100%; with no errors at all Recharts' default domain ran to 400%. */}
                  <YAxis tick={axis} tickFormatter={(n: number) => formatPercent(n)} width={56} domain={[0, (max: number) => (max > 0 ? Math.min(1, max) : 1)]} />
                  <Tooltip {...tooltipProps} formatter={(v) => formatPercent(Number(v))} />
                  <Legend />
                  {lat.providers.map((p, i) => <Line key={p} dataKey={`${p} errors`} name={p} stroke={seriesColor(i)} dot={false} connectNulls isAnimationActive={false} />)}
                </LineChart>
              </ResponsiveContainer>
            </figure>
          </div>
        </>
      )}
    </>
  );
}
