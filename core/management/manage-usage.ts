// What the routed requests used: GET /api/usage/*, `patchbay usage`.
import { InvalidRequestError, PatchbayError } from '../errors/patchbay-error.ts';
import { decodeCursor } from '../usage/log-cursor.ts';
import { currentMonth, monthRange } from '../usage/month-range.ts';
import { parseSessionCursor } from '../usage/session-page.ts';
import type { UsageGroup } from '../usage/usage-backend.ts';
import type { BreakdownGroup, LatencyRow, RequestLogPage, RequestRow, SeriesBucket, SeriesGroup, SessionPage, UsageBreakdown, UsageSeries, UsageTotals } from '../usage/usage-views.ts';
import type { ManagementContext } from './management-context.ts';
import type { UsageLogQuery, UsageRangeQuery } from './management-schemas.ts';
import { toCsv } from './to-csv.ts';
import { DAY_MS, usageRange } from './usage-range.ts';

type UsageContext = Pick<ManagementContext, 'usage'>;

/** An hourly series covers at most this many days (168 points per group): a chart has no room for more. */
const MAX_HOURLY_DAYS = 7;

export async function usageSummary(ctx: UsageContext, month = currentMonth(), groupBy: UsageGroup = 'model') {
  const { from, to } = monthRange(month);
  return { month, group_by: groupBy, rows: await ctx.usage.totalsBy(groupBy, from, to) };
}

export async function usageRequests(ctx: UsageContext, month = currentMonth(), limit = 200) {
  const { from, to } = monthRange(month);
  return { month, rows: await ctx.usage.rows(from, to, limit) };
}

export async function exportUsage(ctx: UsageContext, month = currentMonth(), format: 'csv' | 'json' = 'csv'): Promise<string> {
  const { from, to } = monthRange(month);
  const rows = (await ctx.usage.rows(from, to, 1_000_000)).reverse();
  return format === 'json' ? JSON.stringify(rows, null, 2) : toCsv(rows);
}

export function usageTotals(ctx: UsageContext, query: UsageRangeQuery): Promise<UsageTotals> {
  return ctx.usage.totals(usageRange(query));
}

export function usageSeries(ctx: UsageContext, query: UsageRangeQuery & { bucket?: SeriesBucket; group_by?: SeriesGroup }): Promise<UsageSeries> {
  const range = usageRange(query);
  const bucket = query.bucket ?? 'day';
  if (bucket === 'hour' && range.to - range.from > MAX_HOURLY_DAYS * DAY_MS) {
    throw new InvalidRequestError(`Invalid 'bucket': an hourly series covers at most ${MAX_HOURLY_DAYS} days; narrow 'from' and 'to' or use bucket=day.`, 'bucket');
  }
  return ctx.usage.series(range, bucket, query.group_by ?? 'provider');
}

export async function usageBreakdown(ctx: UsageContext, query: UsageRangeQuery & { group_by?: BreakdownGroup }): Promise<UsageBreakdown> {
  return ctx.usage.breakdown(usageRange(query), query.group_by ?? 'model');
}

export async function usageLatency(ctx: UsageContext, query: UsageRangeQuery): Promise<{ data: LatencyRow[] }> {
  return { data: await ctx.usage.latency(usageRange(query)) };
}

export function usageLog(ctx: UsageContext, query: UsageLogQuery): Promise<RequestLogPage> {
  const cursor = query.cursor === undefined ? null : decodeCursor(query.cursor);
  if (query.cursor !== undefined && cursor === null) {
    throw new InvalidRequestError("Invalid 'cursor': pass the next_cursor of the previous page unchanged, or leave it out for the first page.", 'cursor');
  }
  const filter = { status: query.status, model: query.model, provider: query.provider, keyId: query.key_id, session: query.session };
  return ctx.usage.requestLog(usageRange(query), filter, query.limit ?? 50, cursor);
}

/** One session's requests, newest first; without a range, all of them. */
export function usageSessionRequests(ctx: UsageContext, query: UsageLogQuery & { session: string }): Promise<RequestLogPage> {
  return usageLog(ctx, { from: '1970-01-01', to: new Date(Date.now() + DAY_MS).toISOString().slice(0, 10), ...query });
}

/** Sessions active in the range, the most recently active first, with their agents nested (the Sessions page, `patchbay usage --by session`). */
export async function usageSessions(ctx: UsageContext, query: UsageLogQuery): Promise<SessionPage> {
  const cursor = query.cursor === undefined ? null : parseSessionCursor(query.cursor);
  if (query.cursor !== undefined && !cursor) throw new InvalidRequestError("Invalid 'cursor': pass the next_cursor of the previous page unchanged, or leave it out for the first page.", 'cursor');
  const filter = { status: query.status, model: query.model, provider: query.provider, keyId: query.key_id, session: query.session };
  return ctx.usage.sessions(usageRange(query), filter, query.limit ?? 50, cursor);
}

export async function usageRequest(ctx: UsageContext, requestId: string): Promise<RequestRow> {
  const row = await ctx.usage.request(requestId);
  if (!row) {
    throw new PatchbayError(`No request has the id "${requestId}" (the X-Patchbay-Request-Id header of its answer).`, {
      status: 404,
      type: 'invalid_request_error',
      code: 'request_not_found',
      param: 'request_id',
    });
  }
  return row;
}
