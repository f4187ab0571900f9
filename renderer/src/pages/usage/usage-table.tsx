import { useMemo, useState } from 'react';
import type { BreakdownRow, UsageBreakdown } from '../../api/types.ts';
import { formatMs, formatTokens, formatUsd } from '../../format/format-numbers.ts';
import { groupLabel, NOT_ROUTED } from './group-label.ts';

type SortKey = 'label' | 'requests' | 'errors' | 'prompt_tokens' | 'completion_tokens' | 'cache_read_tokens' | 'cost_usd' | 'p50_ms' | 'p95_ms';

const COLUMNS: { key: SortKey; title: string; format: (row: BreakdownRow) => string; hint?: string }[] = [
  { key: 'requests', title: 'Requests', format: (r) => formatTokens(r.requests), hint: 'Requests it answered' },
  { key: 'errors', title: 'Errors', format: (r) => formatTokens(r.errors), hint: 'Failed attempts, including those a fallback rescued (per key: failed requests)' },
  { key: 'prompt_tokens', title: 'Input', format: (r) => formatTokens(r.prompt_tokens) },
  { key: 'completion_tokens', title: 'Output', format: (r) => formatTokens(r.completion_tokens) },
  { key: 'cache_read_tokens', title: 'Cached', format: (r) => formatTokens(r.cache_read_tokens) },
  { key: 'cost_usd', title: 'Cost', format: (r) => formatUsd(r.cost_usd) },
  { key: 'p50_ms', title: 'p50', format: (r) => formatMs(r.p50_ms) },
  { key: 'p95_ms', title: 'p95', format: (r) => formatMs(r.p95_ms) },
];

const GROUP_TITLE = { model: 'Model', provider: 'Provider', key: 'Key' } as const;

/**
 * The answer to "what did each model / provider / key cost": one row each over the chosen range,
 * sorted by a click on any column heading (again to reverse), most expensive first.
 */
export function UsageTable({ breakdown }: { breakdown: UsageBreakdown }) {
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({ key: 'cost_usd', descending: true });
  const groupBy = breakdown.group_by;
  const rows = useMemo(() => {
    const labelled = breakdown.data.map((row) => ({ row, label: groupLabel(row.group, groupBy, row.key_name) }));
    const value = (entry: (typeof labelled)[number]): string | number => (sort.key === 'label' ? entry.label : (entry.row[sort.key] ?? -1));
    return labelled.sort((a, b) => {
      const x = value(a);
      const y = value(b);
      const order = typeof x === 'string' ? x.localeCompare(String(y)) : x - Number(y);
      return sort.descending ? -order : order;
    });
  }, [breakdown, groupBy, sort]);
  const totalCost = breakdown.data.reduce((sum, r) => sum + r.cost_usd, 0);

  const heading = (key: SortKey, title: string, numeric: boolean, hint?: string) => {
    const active = sort.key === key;
    return (
      <th scope="col" key={key} className={numeric ? 'num' : undefined} aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
        <button type="button" className="sort" title={hint} onClick={() => setSort({ key, descending: active ? !sort.descending : key !== 'label' })}>
          {title}
          <span aria-hidden="true" className="sort-mark">{active ? (sort.descending ? ' ▼' : ' ▲') : ''}</span>
        </button>
      </th>
    );
  };

  return (
    <div className="table-wrap">
      <table className="usage-table" aria-label={`Usage by ${groupBy}`}>
        <thead>
          <tr>
            {heading('label', GROUP_TITLE[groupBy], false)}
            {COLUMNS.map((c) => heading(c.key, c.title, true, c.hint))}
          </tr>
        </thead>
        <tbody>
          {rows.map(({ row, label }) => (
            <tr key={row.group ?? '\u0000'}>
              <th scope="row" className="group-cell" title={label === NOT_ROUTED ? 'Refused before any provider was tried: no eligible provider, or a key\'s cap or rate limit. The Requests page says why for each.' : label}>
                {label}
              </th>
              {COLUMNS.map((c) => (
                <td key={c.key} className={`num${c.key === 'errors' && row.errors > 0 ? ' bad-text' : ''}`}>
                  {c.format(row)}
                  {c.key === 'cost_usd' && totalCost > 0 && row.cost_usd > 0 ? <span className="share"> {Math.round((row.cost_usd / totalCost) * 100)}%</span> : null}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
