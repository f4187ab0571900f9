// Series colours come from CSS variables (--series-1..8) so both themes keep enough contrast;
// SVG presentation attributes accept var(), and setting them is not an inline style.
export const seriesColor = (i: number) => `var(--series-${(i % 8) + 1})`;
