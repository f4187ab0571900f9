/** Joins the samples of several segments. */
export function concat(arrays: Float64Array[]): Float64Array {
  const out = new Float64Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}

/** Percentiles (0-100) of the samples, nearest-rank; NaN when there are none. */
export function percentiles(samples: Float64Array, ps: number[]): number[] {
  if (samples.length === 0) return ps.map(() => NaN);
  const sorted = Float64Array.from(samples).sort();
  return ps.map((p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]);
}

export function mean(samples: Float64Array): number {
  if (samples.length === 0) return NaN;
  let sum = 0;
  for (const s of samples) sum += s;
  return sum / samples.length;
}

export function fmt(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  if (!Number.isFinite(value)) return '∞';
  return value.toFixed(digits);
}

export function round(value: number, digits = 3): number | null {
  if (!Number.isFinite(value)) return null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
