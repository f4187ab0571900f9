import { loadCatalog, type Catalog } from '../catalog/load-catalog.ts';
import type { PatchbayConfig } from '../config/load-config.ts';
import { applyRoutingConfig } from '../routing/apply-routing-config.ts';
import type { CatalogState } from './catalog-updater.ts';

/**
 * Puts an updated catalog (a new price table, the providers' new lists) in force for the next
 * request, without a restart: the catalog object the router and the /v1 handlers hold is refilled
 * in place, the user's aliases resolved again, and the revision moved so the router drops what it
 * cached per model. Requests in flight keep the endpoints they hold.
 */
export function applyCatalogState(live: { config: PatchbayConfig; catalog: Catalog }, state: CatalogState): void {
  const { config, catalog } = live;
  const fresh = loadCatalog(config.providers, state.data, state.discovered);
  catalog.data = fresh.data;
  catalog.discovered = fresh.discovered;
  catalog.pricesAsOf = fresh.pricesAsOf;
  catalog.sources = fresh.sources;
  catalog.auto = fresh.auto;
  for (const key of ['endpoints', 'priceRules', 'aliases', 'embeddingModels'] as const) {
    const target = catalog[key] as Map<string, unknown>;
    target.clear();
    for (const [name, value] of fresh[key] as Map<string, unknown>) target.set(name, value);
  }
  // A routing.aliases member the new catalog lacks keeps the endpoints it had: the table changed, not
  // the user's settings. The caller logs the error.
  const before = new Map(catalog.customAliases);
  try {
    applyRoutingConfig(catalog, config);
  } catch (error) {
    catalog.customAliases = before;
    throw error;
  } finally {
    config.revision++;
  }
}
