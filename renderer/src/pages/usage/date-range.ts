// Usage ranges are whole UTC days (the API's from/to are inclusive YYYY-MM-DD in UTC).
export const todayUtc = (now = new Date()) => now.toISOString().slice(0, 10);
export const currentMonthUtc = (now = new Date()) => now.toISOString().slice(0, 7);

/** First and last day of a YYYY-MM month. */
export function monthBounds(month: string): { from: string; to: string } {
  const [y, m] = month.split('-').map(Number);
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return { from: `${month}-01`, to: `${month}-${String(last).padStart(2, '0')}` };
}

/** Every day from..to, so a chart shows quiet days as zero instead of skipping them. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`), end = Date.parse(`${to}T00:00:00Z`); t <= end && days.length < 400; t += 86_400_000) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}
