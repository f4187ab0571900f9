import type { KeyLimiter } from '../keys/key-limiter.ts';
import type { HealthTracker } from '../routing/health-tracker.ts';
import type { EventHub } from '../events/event-hub.ts';

/** Sends breaker changes and key cap thresholds to the hub (only built when someone listens). */
export function connectEvents(hub: EventHub, health: HealthTracker, limiter: KeyLimiter): void {
  health.onBreakerChange = (endpoint, state, at) => {
    if (!hub.listening) return;
    hub.emit('breaker', { endpoint, provider: endpoint.slice(0, endpoint.indexOf('/')), state: state === 'half-open' ? 'half_open' : state, at: new Date(at).toISOString() });
  };
  // Always connected: a threshold is announced once per month, so one crossed while nobody watches is not announced later.
  limiter.onCap = (event) => hub.emit('key_cap', event);
}
