import type { InfiniteData } from '@tanstack/react-query';
import type { RequestLogPage, RequestRow } from '../../api/types.ts';

export interface RequestFilters {
  /** '' (all), 'ok', 'error', or an HTTP status such as 429. */
  status: string;
  model: string;
  provider: string;
  key_id: string;
  /** YYYY-MM-DD, inclusive, UTC, like the API. */
  from: string;
  to: string;
}

/** The status choices of the filter form: each one GET /api/usage/log accepts (ok, error or an HTTP status). */
export const STATUS_FILTERS = [
  { value: '', label: 'all' },
  { value: 'ok', label: 'ok' },
  { value: 'error', label: 'errors' },
  { value: '429', label: '429 rate limited' },
  { value: '502', label: '502 upstream failed' },
  { value: '503', label: '503 no provider' },
];

export const NO_FILTERS: RequestFilters = { status: '', model: '', provider: '', key_id: '', from: '', to: '' };

export const isError = (row: RequestRow) => row.error_type !== null || row.status >= 400;

/** The same test the server applies to GET /api/usage/log, for rows that arrive live. */
export function matchesFilters(row: RequestRow, f: RequestFilters): boolean {
  if (f.status === 'ok' && isError(row)) return false;
  if (f.status === 'error' && !isError(row)) return false;
  if (f.status && f.status !== 'ok' && f.status !== 'error' && String(row.status) !== f.status) return false;
  if (f.model && row.model !== f.model) return false;
  if (f.provider && row.provider !== f.provider) return false;
  if (f.key_id && row.key_id !== f.key_id) return false;
  const day = row.ts.slice(0, 10);
  if (f.from && day < f.from) return false;
  if (f.to && day > f.to) return false;
  return true;
}

/**
 * A live `request` event merged into the loaded log: prepended when it matches the filters and is
 * not there yet (the event and a refetch can both bring it). Returns the same object when nothing
 * changes, so React Query does not re-render.
 */
export function mergeLiveRow(data: InfiniteData<RequestLogPage> | undefined, row: RequestRow, filters: RequestFilters): InfiniteData<RequestLogPage> | undefined {
  if (!data || data.pages.length === 0 || !matchesFilters(row, filters)) return data;
  if (data.pages.some((page) => page.data.some((r) => r.request_id === row.request_id))) return data;
  const [first, ...rest] = data.pages;
  return { ...data, pages: [{ ...first, data: [row, ...first.data] }, ...rest] };
}
