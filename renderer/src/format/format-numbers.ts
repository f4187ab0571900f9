// Numbers and times in the user's locale. Formatters are built once: Intl constructors are slow.
const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });
const usdCents = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const usdTiny = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', maximumSignificantDigits: 3 });
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const logTime = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', second: '2-digit' });

export const formatTokens = (n: number | null | undefined) => (n === null || n === undefined ? '—' : integer.format(n));

/** USD: cents for ordinary sums, three significant digits below one cent (a request costs $0.000042). */
export function formatUsd(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  if (n !== 0 && Math.abs(n) < 0.01) return usdTiny.format(n);
  return usdCents.format(n);
}

export const formatPercent = (ratio: number | null | undefined) => (ratio === null || ratio === undefined ? '—' : percent.format(ratio));
export const formatMs = (ms: number | null | undefined) => (ms === null || ms === undefined ? '—' : `${integer.format(ms)} ms`);
export const formatDateTime = (iso: string | null | undefined) => (iso ? dateTime.format(new Date(iso)) : '—');
/** A request log row's time: no year, so it fits on one line in a 1024 px window (the detail shows the full date). */
export const formatLogTime = (iso: string | null | undefined) => (iso ? logTime.format(new Date(iso)) : '—');
export const formatDate = (iso: string | null | undefined) => (iso ? dateOnly.format(new Date(iso)) : '—');
