import type { ProviderError } from '../errors/provider-error.ts';

/** What the executor does after an attempt failed: wait and try the same endpoint once more, try the next, or give up. */
export type FailureDecision =
  | { next: 'retry-same'; waitMs: number }
  | { next: 'next-endpoint'; rateLimitedUntilMs: number | null; health: 'failure' | 'rate-limited' }
  | { next: 'stop'; health: 'none' };

/**
 * Pure, from the error's typed fields only (never its text). A client that left stops the request
 * and says nothing about the endpoint. A 429 with a short retry window is waited out once on the
 * same endpoint; a longer one marks the endpoint rate limited and moves on. An error the endpoint
 * answered for the request's own fault (not retryable) stops: another provider would say the same.
 */
export function decideAfterFailure(error: ProviderError, context: { cancelled: boolean; waited: boolean; maxRetryWaitMs: number; now: number }): FailureDecision {
  if (context.cancelled) return { next: 'stop', health: 'none' };
  if (error.upstreamStatus === 429) {
    if (error.retryAfterMs !== undefined && error.retryAfterMs <= context.maxRetryWaitMs && !context.waited) return { next: 'retry-same', waitMs: error.retryAfterMs };
    return { next: 'next-endpoint', rateLimitedUntilMs: error.retryAfterMs === undefined ? null : context.now + error.retryAfterMs, health: 'rate-limited' };
  }
  if (!error.retryable) return { next: 'stop', health: 'none' };
  return { next: 'next-endpoint', rateLimitedUntilMs: null, health: 'failure' };
}
