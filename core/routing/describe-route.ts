import type { AttemptReport } from '../errors/provider-error.ts';

/**
 * Whether a fallback served the request: the endpoint that answered is not the first one tried
 * (a 429 waited out on the same endpoint is a retry, not a fallback).
 */
export function servedByFallback(attempts: readonly AttemptReport[]): boolean {
  const last = attempts[attempts.length - 1];
  if (!last || last.status !== 200) return false;
  return attempts.some((a) => a.status !== 200 && (a.provider !== last.provider || a.model !== last.model));
}

/**
 * The route reason when a fallback served the request (servedByFallback): the plan's reason
 * ("cost chose groq/…"), which endpoints failed and which one answered, so the reason never names
 * only the endpoint that failed.
 */
export function describeFallback(planReason: string, attempts: readonly AttemptReport[]): string {
  const last = attempts[attempts.length - 1];
  const failed = attempts.filter((a) => a.status !== 200 && (a.provider !== last.provider || a.model !== last.model));
  const failures = [...new Map(failed.map((a) => [`${a.provider}/${a.model}`, `${a.provider}/${a.model} failed (${a.status}${a.error_type ? ` ${a.error_type}` : ''})`])).values()];
  return `${planReason}; ${failures.join(', ')}; fallback ${last.provider}/${last.model} served it`;
}
