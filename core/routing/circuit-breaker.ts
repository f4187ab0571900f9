/**
 * One endpoint's circuit breaker. Closed: requests flow. Open: after `failureThreshold`
 * consecutive failures the endpoint is skipped for `cooldownMs`. Half-open: after the cool-down
 * one probe request is let through; its success closes the breaker, its failure opens it again.
 */
export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerSettings {
  failureThreshold: number;
  cooldownMs: number;
}

export interface Breaker {
  state: BreakerState;
  consecutiveFailures: number;
  openedAt: number | null;
  /** A probe is in flight while half-open: no second request goes through until it ends. */
  probing: boolean;
}

export function createBreaker(): Breaker {
  return { state: 'closed', consecutiveFailures: 0, openedAt: null, probing: false };
}

/** Moves an open breaker to half-open once its cool-down has passed (read-time transition). */
export function currentState(breaker: Breaker, settings: BreakerSettings, now: number): BreakerState {
  if (breaker.state === 'open' && breaker.openedAt !== null && now - breaker.openedAt >= settings.cooldownMs) {
    breaker.state = 'half-open';
    breaker.probing = false;
  }
  return breaker.state;
}

/** Whether a request may go to this endpoint now; claims the probe slot when half-open. */
export function admit(breaker: Breaker, settings: BreakerSettings, now: number, claimProbe: boolean): boolean {
  const state = currentState(breaker, settings, now);
  if (state === 'closed') return true;
  if (state === 'open') return false;
  if (breaker.probing) return false;
  if (claimProbe) breaker.probing = true;
  return true;
}

export function recordSuccess(breaker: Breaker): void {
  breaker.state = 'closed';
  breaker.consecutiveFailures = 0;
  breaker.openedAt = null;
  breaker.probing = false;
}

export function recordFailure(breaker: Breaker, settings: BreakerSettings, now: number): void {
  breaker.consecutiveFailures++;
  breaker.probing = false;
  if (breaker.state === 'half-open' || breaker.consecutiveFailures >= settings.failureThreshold) {
    breaker.state = 'open';
    breaker.openedAt = now;
  }
}
