import type { PatchbayConfig, ResolvedProvider } from '../config/load-config.ts';
import type { ProviderAdapter } from '../providers/provider-adapter.ts';
import type { SecretStore } from '../secrets/secret-store.ts';
import type { HealthTracker } from './health-tracker.ts';
import type { PlanView } from './plan-route.ts';
import type { Ineligibility } from './route-plan.ts';
import type { StickyMemory } from './sticky-memory.ts';

export interface PlanViewSources {
  config: PatchbayConfig;
  secrets: SecretStore;
  adapters: Partial<Record<ResolvedProvider['protocol'], ProviderAdapter>>;
  health: HealthTracker;
  /** The round-robin turn each group is at (the router advances it when a plan is committed). */
  turns: ReadonlyMap<string, number>;
  sticky: StickyMemory;
}

/**
 * What the planner reads of routing's live state, made once per router: each read goes straight to
 * its source (the config as it is now, secrets, health, the turns, the sticky memory), so a plan
 * always sees the present without a snapshot being copied per request.
 */
export function createPlanView(sources: PlanViewSources): PlanView {
  const { config, secrets, adapters, health, turns, sticky } = sources;
  return {
    get defaultStrategy() {
      return config.strategy;
    },
    get weights() {
      return config.weights;
    },
    get now() {
      return Date.now();
    },
    provider: (name) => config.providers.get(name),
    speaks: (protocol) => adapters[protocol] !== undefined,
    keyProblem: (provider) => keyProblem(provider, secrets),
    available: (id) => health.isAvailable(id),
    health: (id) => health.health(id),
    turn: (label) => turns.get(label) ?? 0,
    sticky: (key) => sticky.peek(key, Date.now()),
  };
}

/** Why a provider's key cannot be used right now, or null when it can. */
function keyProblem(provider: ResolvedProvider, secrets: SecretStore): Ineligibility | null {
  if (secrets.get(provider)) return null;
  const withheld = secrets.withheldReason(provider);
  if (withheld) return { code: 'secret_withheld', reason: withheld };
  return { code: 'no_key', reason: `${provider.name} has no API key (${secrets.describeSource(provider)})` };
}
