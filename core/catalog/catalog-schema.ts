import { z } from 'zod';
import { matchLogicSchema } from './match-model-id.ts';

/**
 * What a model can do, in Patchbay's words. reasoning: the model reasons before answering and
 * takes a reasoning effort (OpenAI's reasoning_effort, a thinking budget); images: image input;
 * pdf: PDF documents as input; json_schema: answers held to a JSON schema (Structured Outputs).
 */
export const CAPABILITIES = ['chat', 'completions', 'embeddings', 'tools', 'images', 'pdf', 'json_schema', 'logprobs', 'n', 'dimensions', 'streaming', 'reasoning'] as const;
export type Capability = (typeof CAPABILITIES)[number];

const price = z.number().nonnegative().finite();

/** Prices above a prompt size (input tokens, cached ones included), as the provider bills long prompts. */
export const priceTierSchema = z.strictObject({
  above: z.number().int().nonnegative(),
  inputPrice: price.optional(),
  outputPrice: price.optional(),
  cacheReadPrice: price.optional(),
  cacheWritePrice: price.optional(),
  cacheWrite1hPrice: price.optional(),
});
export type PriceTier = z.infer<typeof priceTierSchema>;

/** A model's prices per million tokens: input and output, cache reads and writes, long-context tiers. */
const pricesShape = {
  inputPrice: price,
  outputPrice: price,
  cacheReadPrice: price.optional(),
  cacheWritePrice: price.optional(),
  cacheWrite1hPrice: price.optional(),
  priceTiers: z.array(priceTierSchema).optional(),
};

/** Prices the table announces from a later day (UTC): from that day on they replace the entry's own, cache and long-context prices included. */
export const laterPriceSchema = z.strictObject({
  from: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD'),
  ...pricesShape,
});
export type LaterPrice = z.infer<typeof laterPriceSchema>;

/** Where each fact of an entry came from: a source id of the catalog's `sources`, `family` (catalog-policy.ts) or `default`. */
const factSourcesSchema = z.strictObject({
  price: z.string(),
  contextWindow: z.string().optional(),
  maxOutput: z.string().optional(),
  capabilities: z.string(),
});

export const catalogEndpointSchema = z.strictObject({
  provider: z.string(),
  model: z.string(),
  ...pricesShape,
  /** The prices the table announces from later days, earliest first (the fields above hold the build day's). */
  laterPrices: z.array(laterPriceSchema).optional(),
  /** Catalogs before laterPrices listed only the days (still read from a data dir's catalog; not written). */
  priceChanges: z.array(z.string()).optional(),
  /** 0: unknown. */
  contextWindow: z.number().int().nonnegative(),
  /** 0: unknown. */
  maxOutput: z.number().int().nonnegative(),
  dimensions: z.number().int().positive().optional(),
  nativeCompletions: z.boolean().optional(),
  capabilities: z.array(z.enum(CAPABILITIES)),
  /** The values the provider's API takes for the reasoning effort; absent: unknown. */
  reasoningEfforts: z.array(z.string()).optional(),
  /** The other ids the table prices as this model (dated snapshots, spellings), in its match rules. */
  match: matchLogicSchema.optional(),
  sources: factSourcesSchema.optional(),
});
export type CatalogEndpointData = z.infer<typeof catalogEndpointSchema>;

export const catalogSourceSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  version: z.string(),
  /** The day the snapshot was published. */
  date: z.string(),
  url: z.string(),
  license: z.string(),
});
export type CatalogSource = z.infer<typeof catalogSourceSchema>;

export const catalogDataSchema = z.strictObject({
  /** The day of the price table the prices come from. */
  pricesAsOf: z.string(),
  /** The day this catalog was built. */
  generatedAt: z.string().optional(),
  priceSource: z.string(),
  sources: z.array(catalogSourceSchema).optional(),
  aliases: z.record(z.string(), z.array(z.string()).min(1)),
  embeddingModels: z.record(z.string(), z.array(z.string()).min(1)),
  /** Aliases `auto` chooses from: a fast, cheap tier and a strong tier. */
  auto: z.strictObject({ fast: z.array(z.string()).min(1), strong: z.array(z.string()).min(1) }),
  endpoints: z.array(catalogEndpointSchema),
});
export type CatalogData = z.infer<typeof catalogDataSchema>;
