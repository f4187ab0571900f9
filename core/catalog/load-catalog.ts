import { readFileSync } from 'node:fs';
import type { ResolvedProvider } from '../config/load-config.ts';
import { CAPABILITIES, catalogDataSchema, type Capability, type CatalogData, type CatalogSource, type PriceTier } from './catalog-schema.ts';
import type { MatchLogic } from './match-model-id.ts';

export { CAPABILITIES, type Capability, type PriceTier };

/** One model as one provider serves it: the unit that routing ranks and health tracks. */
export interface Endpoint {
  /** `provider/model`, the id a client pins with. */
  id: string;
  provider: string;
  /** The provider's own model id. */
  model: string;
  inputPrice: number;
  outputPrice: number;
  /**
   * USD per million prompt tokens read from the provider's prompt cache, and written to it
   * (Anthropic's 5-minute and 1-hour writes). Undefined where the catalog has no such price: those
   * tokens are then priced as input (see priceUsage).
   */
  cacheReadPrice?: number;
  cacheWritePrice?: number;
  cacheWrite1hPrice?: number;
  /** Higher prices above a prompt size (long-context pricing), lowest threshold first; see selectPriceTier. */
  priceTiers?: PriceTier[];
  /**
   * True when no table prices this model (a model only the provider's own list names): the prices
   * above are 0 placeholders, never a price. Usage rows of it record no cost; a USD-capped key refuses it.
   */
  priceUnknown?: boolean;
  /** 0 when unknown. */
  contextWindow: number;
  /** 0 when unknown. */
  maxOutput: number;
  dimensions?: number;
  /** The values the provider's API takes for this model's reasoning effort; undefined when unknown. */
  reasoningEfforts?: string[];
  /** The upstream has a legacy /completions endpoint for this model; otherwise completions go through chat. */
  nativeCompletions: boolean;
  capabilities: ReadonlySet<Capability>;
}

export interface Catalog {
  /** The day of the price table the prices come from. */
  pricesAsOf: string;
  /** The tables the catalog was built from, with their dates. */
  sources: CatalogSource[];
  /** Per provider, the table's rules for other ids of a listed model (dated snapshots), in table order: see findPricedModel. */
  priceRules: Map<string, { match: MatchLogic; endpoint: Endpoint }[]>;
  endpoints: Map<string, Endpoint>;
  /** Short alias -> endpoint ids, in catalog order. */
  aliases: Map<string, string[]>;
  /** Unprefixed embedding model name -> endpoint ids. */
  embeddingModels: Map<string, string[]>;
  auto: { fast: string[]; strong: string[] };
  /** The user's own aliases (routing.aliases), resolved to endpoints; they take precedence over everything else. */
  customAliases: Map<string, Endpoint[]>;
}

const DEFAULT_USER_CAPABILITIES: Capability[] = ['chat', 'completions', 'tools', 'streaming'];

let shipped: CatalogData | undefined;

/** The catalog Patchbay ships (core/catalog/catalog.json, built by `npm run catalog:update`), read once. */
export function readShippedCatalog(): CatalogData {
  shipped ??= catalogDataSchema.parse(JSON.parse(readFileSync(new URL('./catalog.json', import.meta.url), 'utf8')));
  return shipped;
}

/**
 * A catalog's data (the shipped one, or one `patchbay models update` wrote to the data dir) plus
 * the models that config adds (user-defined providers' models, overrides).
 */
export function loadCatalog(providers: Map<string, ResolvedProvider>, data: CatalogData = readShippedCatalog()): Catalog {
  const endpoints = new Map<string, Endpoint>();
  const priceRules = new Map<string, { match: MatchLogic; endpoint: Endpoint }[]>();
  for (const entry of data.endpoints) {
    const { match, sources: _, priceChanges: __, ...facts } = entry;
    const endpoint: Endpoint = {
      ...facts,
      id: `${entry.provider}/${entry.model}`,
      nativeCompletions: entry.nativeCompletions ?? false,
      capabilities: new Set(entry.capabilities),
    };
    endpoints.set(endpoint.id, endpoint);
    if (match) priceRules.set(entry.provider, [...(priceRules.get(entry.provider) ?? []), { match, endpoint }]);
  }
  for (const provider of providers.values()) {
    for (const model of provider.models) {
      const id = `${provider.name}/${model.id}`;
      const base = endpoints.get(id);
      endpoints.set(id, defaultEndpoint(provider.name, model.id, base, model));
    }
  }
  return {
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
      ? { cacheReadPrice: base.cacheReadPrice, cacheWritePrice: base.cacheWritePrice, cacheWrite1hPrice: base.cacheWrite1hPrice, priceTiers: base.priceTiers, priceUnknown: base.priceUnknown }
      : {}),
    contextWindow: overrides.contextWindow ?? base?.contextWindow ?? 0,
    maxOutput: overrides.maxOutput ?? base?.maxOutput ?? 0,
    dimensions: base?.dimensions,
    reasoningEfforts: base?.reasoningEfforts,
    nativeCompletions: base?.nativeCompletions ?? false,
    capabilities,
  };
}
