import { describe, expect, it } from 'vitest';
import type { RequestRow } from '../../api/types.ts';
import { usageLogQuerySchema } from '../../../../core/management/management-schemas.ts';
import { matchesFilters, mergeLiveRow, NO_FILTERS, STATUS_FILTERS } from './request-filters.ts';

const row = (id: string, over: Partial<RequestRow> = {}): RequestRow => ({
  request_id: id, ts: '2026-11-05T10:00:00.000Z', key_id: 'key_a', key_name: 'editor', endpoint: 'openai/gpt-4o-mini', requested_model: 'gpt-4o-mini',
  provider: 'openai', model: 'gpt-4o-mini', strategy: 'balanced', status: 200, error_type: null, stream: false, prompt_tokens: 10, completion_tokens: 5,
  total_tokens: 15, cost_usd: 0.00001, latency_ms: 300, first_byte_ms: 120, route_reason: 'cheapest', attempts: [], ...over,
});
const loaded = (rows: RequestRow[]) => ({ pages: [{ data: rows, next_cursor: 'c1' }, { data: [row('old')], next_cursor: null }], pageParams: [null, 'c1'] });

describe('live request rows merged into the log', () => {
  it('prepends a new matching row to the first page', () => {
    const next = mergeLiveRow(loaded([row('r1')]), row('r2'), NO_FILTERS)!;
    expect(next.pages[0].data.map((r) => r.request_id)).toEqual(['r2', 'r1']);
    expect(next.pages[1].data.map((r) => r.request_id)).toEqual(['old']);
  });

  it('leaves out rows the filters exclude', () => {
    const data = loaded([row('r1')]);
    expect(mergeLiveRow(data, row('r2', { provider: 'groq' }), { ...NO_FILTERS, provider: 'openai' })).toBe(data);
    expect(mergeLiveRow(data, row('r3'), { ...NO_FILTERS, status: 'error' })).toBe(data);
    expect(mergeLiveRow(data, row('r4'), { ...NO_FILTERS, to: '2026-11-04' })).toBe(data);
    expect(mergeLiveRow(data, row('r5', { key_id: 'key_b' }), { ...NO_FILTERS, key_id: 'key_a' })).toBe(data);
  });

  it('does not add a row twice (an event after a refetch that already has it)', () => {
    const data = loaded([row('r1')]);
    expect(mergeLiveRow(data, row('old'), NO_FILTERS)).toBe(data);
  });

  it('status filters: ok, error or an HTTP status', () => {
    const failed = row('e', { status: 429, error_type: 'rate_limit_exceeded' });
    expect(matchesFilters(failed, { ...NO_FILTERS, status: 'error' })).toBe(true);
    expect(matchesFilters(failed, { ...NO_FILTERS, status: 'ok' })).toBe(false);
    expect(matchesFilters(failed, { ...NO_FILTERS, status: '429' })).toBe(true);
    expect(matchesFilters(row('ok'), { ...NO_FILTERS, status: '429' })).toBe(false);
  });

  it('the model filter is the upstream model id, as the server applies it (a live row lands where a reload puts it)', () => {
    const routed = row('m', { requested_model: 'llama-3.3-70b', provider: 'groq', model: 'llama-3.3-70b-versatile' });
    expect(matchesFilters(routed, { ...NO_FILTERS, model: 'llama-3.3-70b-versatile' })).toBe(true);
    expect(matchesFilters(routed, { ...NO_FILTERS, model: 'llama-3.3-70b' })).toBe(false);
  });

  it('offers only status filters the server accepts (a choice it refuses would show an error, not requests)', () => {
    for (const option of STATUS_FILTERS) {
      if (option.value === '') continue;
      expect(usageLogQuerySchema.shape.status.safeParse(option.value).success, option.label).toBe(true);
    }
  });
});
