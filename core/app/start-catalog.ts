import type { Catalog } from '../catalog/load-catalog.ts';
import { FileCatalogStore, type CatalogStore } from '../catalog/catalog-store.ts';
import type { PatchbayConfig } from '../config/load-config.ts';
import { applyCatalogState } from '../management/apply-catalog-state.ts';
import { CatalogUpdater } from '../management/catalog-updater.ts';
import type { SecretStore } from '../secrets/secret-store.ts';

/**
 * The running catalog's updates: the catalog an earlier update stored (the data dir, or the team's
 * database) put in force before the first request, then each update and each round of model
 * discovery put in force as it comes, never on a request's path. `discovery: false` reads no
 * provider's list (tests whose upstream fixtures count requests).
 */
export async function startCatalog(options: {
  dataDir: string;
  config: PatchbayConfig;
  catalog: Catalog;
  secrets: SecretStore;
  store?: CatalogStore;
  discovery: boolean;
  log: (line: string) => void;
}): Promise<CatalogUpdater> {
  const { config, catalog, log } = options;
  const apply = (state: Parameters<typeof applyCatalogState>[1]) => {
    try {
      applyCatalogState({ config, catalog }, state);
    } catch (error) {
      log(`The updated catalog leaves a routing setting unresolved; it keeps its earlier models: ${(error as Error).message}`);
    }
  };
  const updater = new CatalogUpdater({
    dataDir: options.dataDir,
    store: options.store ?? new FileCatalogStore(options.dataDir, log),
    url: () => config.catalogUrl,
    providers: () => config.providers,
    secret: (provider) => options.secrets.get(provider),
    connectTimeoutMs: () => config.connectTimeoutMs,
    log,
    changed: apply,
    discoverEveryMs: options.discovery ? config.discoverEveryMs : 0,
    discoverAtStart: options.discovery,
  });
  const state = await updater.start();
  if (state.data !== catalog.data || state.discovered.size > 0) apply(state);
  return updater;
}
