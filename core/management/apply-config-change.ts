import { loadCatalog, type Catalog } from '../catalog/load-catalog.ts';
import type { ConfigStore } from '../config/config-store.ts';
import { ConfigError, type PatchbayConfig } from '../config/load-config.ts';
import { InvalidRequestError } from '../errors/patchbay-error.ts';
import { applyRoutingConfig } from '../routing/apply-routing-config.ts';

/** The running Patchbay's config and catalog: shared objects the router and the /v1 handlers read. */
export interface LiveConfig {
  config: PatchbayConfig;
  catalog: Catalog;
  /** Where changes are saved: config.json, or PostgreSQL for a team's replicas. */
  store: ConfigStore;
}

/**
 * Edits the stored config and applies the result to the running Patchbay: validated first (schema,
 * then every alias, fallback and provider reference), saved atomically (on PostgreSQL with the
 * notification that makes every other replica apply it), and in force for the next request
 * without a restart. A change that does not validate is a 400 naming the field and leaves both the
 * stored config and the running state as they were.
 */
export async function applyConfigChange(live: LiveConfig, edit: (raw: Record<string, unknown>) => void): Promise<PatchbayConfig> {
  let next: PatchbayConfig;
  try {
    next = await live.store.edit(edit, (candidate) => applyRoutingConfig(loadCatalog(candidate.providers), candidate));
  } catch (error) {
    if (error instanceof ConfigError) throw new InvalidRequestError(error.message.replace(/\nFix the file; Patchbay never replaces it\.$/, ''), fieldOf(error.message), 'invalid_config');
    throw error;
  }
  applyConfig(live, next);
  return next;
}

/**
 * Puts a validated config in force: the router sees it through applyRoutingConfig and the
 * revision, requests in flight keep the provider objects they hold. Also used for a change another
 * replica saved.
 */
export function applyConfig(live: Pick<LiveConfig, 'config' | 'catalog'>, next: PatchbayConfig): void {
  const { config, catalog } = live;
  config.strategy = next.strategy;
  config.weights = next.weights;
  config.fallbacks = next.fallbacks;
  config.aliases = next.aliases;
  config.telemetry = next.telemetry;
  config.rules = next.rules;
  for (const name of [...config.providers.keys()]) if (!next.providers.has(name)) config.providers.delete(name);
  for (const [name, provider] of next.providers) {
    const current = config.providers.get(name);
    // Keep each provider's object: requests in flight hold it.
    if (current) Object.assign(current, provider);
    else config.providers.set(name, provider);
  }
  const fresh = loadCatalog(config.providers);
  catalog.endpoints.clear();
  for (const [id, endpoint] of fresh.endpoints) catalog.endpoints.set(id, endpoint);
  applyRoutingConfig(catalog, config);
  config.revision++;
}

/** The first field a config error names (`  - routing.aliases.x[0]: ...`), as the 400's param. */
function fieldOf(message: string): string | null {
  return /^\s+- ([^:]+):/m.exec(message)?.[1] ?? null;
}
