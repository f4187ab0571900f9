import { InvalidRequestError } from '../errors/patchbay-error.ts';
import { currentMonth, monthRange } from '../usage/month-range.ts';
import type { UsageRange } from '../usage/usage-backend.ts';
import type { UsageRangeQuery } from './management-schemas.ts';

export const DAY_MS = 86_400_000;

/** Whole UTC days, both inclusive, as instants (`to` exclusive); each side defaults to this month. */
export function usageRange(query: UsageRangeQuery): UsageRange {
  const { from: monthFrom, to: monthTo } = monthRange(currentMonth());
  const from = query.from ? Date.parse(`${query.from}T00:00:00Z`) : monthFrom;
  const to = query.to ? Date.parse(`${query.to}T00:00:00Z`) + DAY_MS : monthTo;
  if (to <= from) throw new InvalidRequestError(`Invalid 'to': ${query.to ?? 'the end of this month'} is before 'from' (${query.from ?? 'the start of this month'}).`, 'to');
  return { from, to };
}
