import { readFileSync } from 'node:fs';
import type { ResolvedProvider } from '../config/load-config.ts';
import { CAPABILITIES, catalogDataSchema, type Capability, type CatalogData, type PriceTier } from './catalog-schema.ts';
import type { Catalog, Endpoint } from './catalog-types.ts';
import { discoveredEndpoints, type ProviderModel } from './discovered-endpoints.ts';
import type { MatchLogic } from './match-model-id.ts';
import { priceDay, pricesOnDay } from './prices-on-day.ts';

export { CAPABILITIES, type Capability, type Catalog, type Endpoint, type PriceTier };

const DEFAULT_USER_CAPABILITIES: Capability[] = ['chat', 'completions', 'tools', 'streaming'];

let shipped: CatalogData | undefined;

/** The catalog Patchbay ships (core/catalog/catalog.json, built by `npm run catalog:update`), read once. */
export function readShippedCatalog(): CatalogData {
  shipped ??= catalogDataSchema.parse(JSON.parse(readFileSync(new URL('./catalog.json', import.meta.url), 'utf8')));
  return shipped;
}

/**
 * A catalog's data (the shipped one, or one `patchbay models update` wrote to the data dir), the
 * models the providers' own lists add (discovery), then the models that config adds
 * (user-defined providers' models, overrides: a price given there prices a discovered model).
 */
export function loadCatalog(providers: Map<string, ResolvedProvider>, data: CatalogData = readShippedCatalog(), discovered: Map<string, ProviderModel[]> = new Map(), now = new Date()): Catalog {
  const endpoints = new Map<string, Endpoint>();
  const priceRules = new Map<string, { match: MatchLogic; endpoint: Endpoint }[]>();
  for (const entry of data.endpoints) {
    const { match, sources: _, priceChanges: __, ...facts } = entry;
    // Today's prices (a change the table announced may have begun since the catalog was built); a
    // process that runs past a change day prices each answer on its own day (costOfAnswer).
    const endpoint: Endpoint = {
      ...pricesOnDay(facts, priceDay(now)),
      id: `${entry.provider}/${entry.model}`,
      nativeCompletions: entry.nativeCompletions ?? false,
      capabilities: new Set(entry.capabilities),
    };
    endpoints.set(endpoint.id, endpoint);
    if (match) priceRules.set(entry.provider, [...(priceRules.get(entry.provider) ?? []), { match, endpoint }]);
  }
  for (const endpoint of discoveredEndpoints({ endpoints, priceRules }, discovered)) endpoints.set(endpoint.id, endpoint);
  for (const provider of providers.values()) {
    for (const model of provider.models) {
      const id = `${provider.name}/${model.id}`;
      const base = endpoints.get(id);
      endpoints.set(id, defaultEndpoint(provider.name, model.id, base, model));
    }
  }
  return {
    data,
    discovered,
    pricesAsOf: data.pricesAsOf,
    sources: data.sources ?? [],
    priceRules,
    endpoints,
    aliases: new Map(Object.entries(data.aliases)),
    embeddingModels: new Map(Object.entries(data.embeddingModels)),
    auto: data.auto,
    customAliases: new Map(),
  };
}

/** An endpoint for a model the catalog does not know (a user-defined provider's model, pinned by id). */
export function defaultEndpoint(
  provider: string,
  model: string,
  base?: Endpoint,
  overrides: { contextWindow?: number; maxOutput?: number; inputPrice?: number; outputPrice?: number; capabilities?: string[] } = {},
): Endpoint {
  const capabilities = overrides.capabilities
    ? new Set(overrides.capabilities.filter((c): c is Capability => (CAPABILITIES as readonly string[]).includes(c)))
    : (base?.capabilities ?? new Set(DEFAULT_USER_CAPABILITIES));
  return {
    id: `${provider}/${model}`,
    provider,
    model,
    inputPrice: overrides.inputPrice ?? base?.inputPrice ?? 0,
    outputPrice: overrides.outputPrice ?? base?.outputPrice ?? 0,
    // A price override replaces the catalog's prices: its cache and long-context prices were fractions of the old ones.
    ...(overrides.inputPrice === undefined && base
      ? { cacheReadPrice: base.cacheReadPrice, cacheWritePrice: base.cacheWritePrice, cacheWrite1hPrice: base.cacheWrite1hPrice, priceTiers: base.priceTiers, priceUnknown: base.priceUnknown, laterPrices: base.laterPrices }
      : {}),
    contextWindow: overrides.contextWindow ?? base?.contextWindow ?? 0,
    maxOutput: overrides.maxOutput ?? base?.maxOutput ?? 0,
    dimensions: base?.dimensions,
    reasoningEfforts: base?.reasoningEfforts,
    nativeCompletions: base?.nativeCompletions ?? false,
    capabilities,
  };
}
