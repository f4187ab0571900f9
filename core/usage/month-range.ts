/** The first instant of a UTC month and of the month after it; `month` is YYYY-MM. */
export function monthRange(month: string): { from: number; to: number } {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month);
  if (!match) throw new RangeError(`Month must look like 2026-11, not "${month}"`);
  const year = Number(match[1]);
  const monthIndex = Number(match[2]) - 1;
  return { from: Date.UTC(year, monthIndex, 1), to: Date.UTC(year, monthIndex + 1, 1) };
}

export function currentMonth(now = Date.now()): string {
  return new Date(now).toISOString().slice(0, 7);
}
