import type { Catalog, Endpoint } from '../../catalog/load-catalog.ts';
import type { PatchbayConfig } from '../../config/load-config.ts';

export interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  context_window: number;
  max_output_tokens: number;
  capabilities: Record<string, boolean>;
  /** For aliases: the endpoints that serve it. */
  endpoints?: string[];
  pricing?: ModelPricing;
  /** The values the provider takes for the model's reasoning effort, where the catalog knows them. */
  reasoning_efforts?: string[];
}

/**
 * USD per million tokens and the day of the table they come from. A model only the provider's
 * own list names has no price: its prices are null and `unknown` is true (its usage is recorded
 * without a cost, and a key with a USD cap refuses it).
 */
export interface ModelPricing {
  input_per_million: number | null;
  output_per_million: number | null;
  cache_read_per_million?: number;
  cache_write_per_million?: number;
  cache_write_1h_per_million?: number;
  /** Long-context prices: above `above_prompt_tokens` prompt tokens, these replace the ones above. */
  tiers?: { above_prompt_tokens: number; input_per_million?: number; output_per_million?: number; cache_read_per_million?: number }[];
  unknown?: true;
  as_of: string;
}

export function pricingOf(endpoint: Endpoint, asOf: string): ModelPricing {
  if (endpoint.priceUnknown) return { input_per_million: null, output_per_million: null, unknown: true, as_of: asOf };
  return {
    input_per_million: endpoint.inputPrice,
    output_per_million: endpoint.outputPrice,
    ...(endpoint.cacheReadPrice !== undefined ? { cache_read_per_million: endpoint.cacheReadPrice } : {}),
    ...(endpoint.cacheWritePrice !== undefined ? { cache_write_per_million: endpoint.cacheWritePrice } : {}),
    ...(endpoint.cacheWrite1hPrice !== undefined ? { cache_write_1h_per_million: endpoint.cacheWrite1hPrice } : {}),
    ...(endpoint.priceTiers?.length
      ? {
          tiers: endpoint.priceTiers.map((t) => ({
            above_prompt_tokens: t.above,
            ...(t.inputPrice !== undefined ? { input_per_million: t.inputPrice } : {}),
            ...(t.outputPrice !== undefined ? { output_per_million: t.outputPrice } : {}),
            ...(t.cacheReadPrice !== undefined ? { cache_read_per_million: t.cacheReadPrice } : {}),
          })),
        }
      : {}),
    as_of: asOf,
  };
}

const CAPABILITY_KEYS = ['chat', 'completions', 'embeddings', 'tools', 'images', 'pdf', 'json_schema', 'logprobs', 'n', 'dimensions', 'streaming', 'reasoning'] as const;

/** Built-in aliases say what any member can do (routing picks a capable one); custom aliases what all share. */
function capabilitiesOf(endpoints: Endpoint[], every = false): Record<string, boolean> {
  return Object.fromEntries(CAPABILITY_KEYS.map((c) => [c, every ? endpoints.every((e) => e.capabilities.has(c)) : endpoints.some((e) => e.capabilities.has(c))]));
}

/** GET /v1/models: every endpoint of an enabled provider, then the aliases and embedding names. */
export function listModels(catalog: Catalog, config: PatchbayConfig, created: number): ModelObject[] {
  const enabled = (e: Endpoint) => config.providers.get(e.provider)?.enabled === true;
  const data: ModelObject[] = [];
  for (const endpoint of catalog.endpoints.values()) {
    if (!enabled(endpoint)) continue;
    data.push({
      id: endpoint.id,
      object: 'model',
      created,
      owned_by: endpoint.provider,
      context_window: endpoint.contextWindow,
      max_output_tokens: endpoint.maxOutput,
      capabilities: capabilitiesOf([endpoint]),
      pricing: pricingOf(endpoint, catalog.pricesAsOf),
      ...(endpoint.reasoningEfforts ? { reasoning_efforts: endpoint.reasoningEfforts } : {}),
    });
  }
  const groups: [string, Endpoint[], boolean][] = [];
  for (const [name, ids] of [...catalog.aliases, ...catalog.embeddingModels]) {
    if (!catalog.customAliases.has(name)) groups.push([name, ids.map((id) => catalog.endpoints.get(id)!), false]);
  }
  // `auto` picks a tier per request (a fast one, or a strong one for tools, images and long prompts).
  if (!catalog.customAliases.has('auto')) {
    const tiers = [...catalog.auto.fast, ...catalog.auto.strong].flatMap((alias) => catalog.aliases.get(alias) ?? []);
    groups.push(['auto', [...new Set(tiers)].map((id) => catalog.endpoints.get(id)!), false]);
  }
  for (const [name, endpoints] of catalog.customAliases) groups.push([name, endpoints, true]);
  for (const [name, members, custom] of groups) {
    const endpoints = members.filter((e) => e && enabled(e));
    if (endpoints.length === 0) continue;
    data.push({
      id: name,
      object: 'model',
      created,
      owned_by: custom ? 'user' : 'patchbay',
      context_window: Math.min(...endpoints.map((e) => e.contextWindow)),
      max_output_tokens: Math.min(...endpoints.map((e) => e.maxOutput)),
      capabilities: capabilitiesOf(endpoints, custom),
      endpoints: endpoints.map((e) => e.id),
    });
  }
  return data;
}
