import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { ResolvedProvider } from '../config/load-config.ts';

// reasoning: the model reasons before answering and takes a reasoning effort (OpenAI's reasoning_effort, a thinking budget).
export const CAPABILITIES = ['chat', 'completions', 'embeddings', 'tools', 'images', 'logprobs', 'n', 'dimensions', 'streaming', 'reasoning'] as const;
export type Capability = (typeof CAPABILITIES)[number];

const endpointSchema = z.strictObject({
  provider: z.string(),
  model: z.string(),
  inputPrice: z.number().nonnegative(),
  outputPrice: z.number().nonnegative(),
  cacheReadPrice: z.number().nonnegative().optional(),
  cacheWritePrice: z.number().nonnegative().optional(),
  cacheWrite1hPrice: z.number().nonnegative().optional(),
  contextWindow: z.number().int().nonnegative(),
  maxOutput: z.number().int().nonnegative(),
  dimensions: z.number().int().positive().optional(),
  nativeCompletions: z.boolean().optional(),
  capabilities: z.array(z.enum(CAPABILITIES)),
});

const catalogSchema = z.strictObject({
  pricesAsOf: z.string(),
  priceSource: z.string(),
  cachePriceSource: z.string(),
  aliases: z.record(z.string(), z.array(z.string()).min(1)),
  embeddingModels: z.record(z.string(), z.array(z.string()).min(1)),
  /** Aliases `auto` chooses from: a fast, cheap tier and a strong tier. */
  auto: z.strictObject({ fast: z.array(z.string()).min(1), strong: z.array(z.string()).min(1) }),
  endpoints: z.array(endpointSchema),
});

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
  contextWindow: number;
  maxOutput: number;
  dimensions?: number;
  /** The upstream has a legacy /completions endpoint for this model; otherwise completions go through chat. */
  nativeCompletions: boolean;
  capabilities: ReadonlySet<Capability>;
}

export interface Catalog {
  pricesAsOf: string;
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

let shipped: z.infer<typeof catalogSchema> | undefined;

function readShippedCatalog(): z.infer<typeof catalogSchema> {
  shipped ??= catalogSchema.parse(JSON.parse(readFileSync(new URL('./catalog.json', import.meta.url), 'utf8')));
  return shipped;
}

/** The shipped catalog plus the models that config adds (user-defined providers' models, overrides). */
export function loadCatalog(providers: Map<string, ResolvedProvider>): Catalog {
  const data = readShippedCatalog();
  const endpoints = new Map<string, Endpoint>();
  for (const entry of data.endpoints) {
    endpoints.set(`${entry.provider}/${entry.model}`, {
      ...entry,
      id: `${entry.provider}/${entry.model}`,
      nativeCompletions: entry.nativeCompletions ?? false,
      capabilities: new Set(entry.capabilities),
    });
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
    // A price override replaces the catalog's prices: its cache prices were fractions of the old ones.
    ...(overrides.inputPrice === undefined && base
      ? { cacheReadPrice: base.cacheReadPrice, cacheWritePrice: base.cacheWritePrice, cacheWrite1hPrice: base.cacheWrite1hPrice }
      : {}),
    contextWindow: overrides.contextWindow ?? base?.contextWindow ?? 0,
    maxOutput: overrides.maxOutput ?? base?.maxOutput ?? 0,
    dimensions: base?.dimensions,
    nativeCompletions: base?.nativeCompletions ?? false,
    capabilities,
  };
}
