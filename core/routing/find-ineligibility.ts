import type { Endpoint } from '../catalog/load-catalog.ts';
import type { ResolvedProvider } from '../config/load-config.ts';
import type { EndpointHealth } from './health-tracker.ts';
import type { Ineligibility } from './route-plan.ts';

/** What eligibility reads of the world right now: the provider table, which protocols this build speaks, secrets and health. */
export interface EligibilityView {
  provider(name: string): ResolvedProvider | undefined;
  speaks(protocol: ResolvedProvider['protocol']): boolean;
  /** Why the provider's key cannot be used (no key, withheld from this origin), or null when it can. */
  keyProblem(provider: ResolvedProvider): Ineligibility | null;
  available(id: string): boolean;
  health(id: string): EndpointHealth;
}

/** Why an endpoint cannot be tried right now, or null when it can. */
export function findIneligibility(endpoint: Endpoint, view: EligibilityView): Ineligibility | null {
  const provider = view.provider(endpoint.provider);
  if (!provider) return { code: 'disabled', reason: `${endpoint.provider} is no longer configured` };
  if (!provider.enabled) return { code: 'disabled', reason: `${provider.name} is disabled in the config` };
  if (!view.speaks(provider.protocol)) return { code: 'disabled', reason: `${provider.name} speaks the ${provider.protocol} protocol, which this build cannot translate` };
  if (provider.requiresKey) {
    const problem = view.keyProblem(provider);
    if (problem) return problem;
  }
  if (!view.available(endpoint.id)) {
    const health = view.health(endpoint.id);
    return health.rateLimitedUntil
      ? { code: 'rate_limited', reason: `${endpoint.id} is rate limited until ${new Date(health.rateLimitedUntil).toISOString()}` }
      : { code: 'breaker_open', reason: `${endpoint.id} is failing (circuit breaker open)` };
  }
  return null;
}
