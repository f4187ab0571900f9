import { loadCatalog, type Catalog } from '../catalog/load-catalog.ts';
import { ConfigError, type PatchbayConfig } from '../config/load-config.ts';
import { editConfigFile } from '../config/write-config.ts';
import { InvalidRequestError } from '../errors/patchbay-error.ts';
import { applyRoutingConfig } from '../routing/apply-routing-config.ts';

/** The running Patchbay's config and catalog: shared objects the router and the /v1 handlers read. */
export interface LiveConfig {
  config: PatchbayConfig;
  catalog: Catalog;
  configPath: string;
}

/**
 * Edits the config file and applies the result to the running Patchbay: validated first (schema,
 * then every alias, fallback and provider reference), written atomically, and in force for the
 * next request without a restart. A change that does not validate is a 400 naming the field and
 * leaves both the file and the running state as they were.
 */
export function applyConfigChange(live: LiveConfig, edit: (raw: Record<string, unknown>) => void): PatchbayConfig {
  let next: PatchbayConfig;
  try {
    next = editConfigFile(live.configPath, edit, (candidate) => applyRoutingConfig(loadCatalog(candidate.providers), candidate));
  } catch (error) {
    if (error instanceof ConfigError) throw new InvalidRequestError(error.message.replace(/\nFix the file; Patchbay never replaces it\.$/, ''), fieldOf(error.message), 'invalid_config');
    throw error;
  }
  const { config, catalog } = live;
  config.strategy = next.strategy;
  config.weights = next.weights;
  config.fallbacks = next.fallbacks;
  config.aliases = next.aliases;
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
  return next;
}

/** The first field a config error names (`  - routing.aliases.x[0]: ...`), as the 400's param. */
function fieldOf(message: string): string | null {
  return /^\s+- ([^:]+):/m.exec(message)?.[1] ?? null;
}
