/**
 * USD for the terminal: cents for ordinary sums, three significant digits below a cent, so a
 * month of small requests reads $0.000346, never $0.0000 (and a fraction of a cent is never
 * printed as nothing).
 */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0.00';
  if (Math.abs(usd) >= 0.01) return `$${usd.toFixed(2)}`;
  const digits = Math.min(20, 2 - Math.floor(Math.log10(Math.abs(usd))));
  return `$${Number(usd.toPrecision(3)).toFixed(digits).replace(/0+$/, '')}`;
}
