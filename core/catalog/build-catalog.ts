import { z } from 'zod';
import { buildAliases } from './build-aliases.ts';
import { PROVIDER_POLICIES, type ProviderPolicy } from './catalog-policy.ts';
import { catalogDataSchema, type CatalogData, type CatalogEndpointData, type CatalogSource, type LaterPrice } from './catalog-schema.ts';
import { deriveCapabilities } from './derive-capabilities.ts';
import { mapTablePrices, type EndpointPrices } from './map-table-prices.ts';
import { matchesModelId, namedIds } from './match-model-id.ts';
import type { ModelsDev, ModelsDevModel } from './models-dev-schema.ts';
import { laterPriceChanges, pricesOn, type PriceTable } from './price-table-schema.ts';

/** Patchbay's hand-kept catalog of 2026-08-21, read as one more source (its fields are the catalog's own). */
export const previousCatalogSchema = z.looseObject({ ...catalogDataSchema.shape, priceSource: z.string().optional() });
export type PreviousCatalog = z.infer<typeof previousCatalogSchema>;

export interface CatalogInputs {
  /** genai-prices' table: prices, context windows, and which ids each price covers. */
  table: PriceTable;
  tableSource: CatalogSource;
  /** models.dev: capabilities and output limits (older; cross-checks the windows). */
  modelsDev: ModelsDev;
  modelsDevSource: CatalogSource;
  /** Patchbay's previous catalog: its aliases, and the facts of models the tables lack. */
  previous: PreviousCatalog;
  previousSource: CatalogSource;
  /** The day the catalog is built for (YYYY-MM-DD): which of a table's dated prices apply. */
  day: string;
}

export interface BuiltCatalog {
  catalog: CatalogData;
  /** What was left out and why, for the script's output. */
  notes: string[];
}

/**
 * The catalog from the tables, pure: per provider, the table's models that Patchbay's policy
 * keeps, priced as the table prices them today; then models only models.dev lists, then those
 * only Patchbay's previous catalog had. Each entry says which source gave its price, window,
 * output limit and capabilities; what no source gives stays unknown (0, or absent).
 */
export function buildCatalog(inputs: CatalogInputs): BuiltCatalog {
  const notes: string[] = [];
  const endpoints: CatalogEndpointData[] = [];
  for (const [provider, policy] of Object.entries(PROVIDER_POLICIES)) {
    endpoints.push(...buildProvider(provider, policy, inputs, notes));
  }
  const { aliases, embeddingModels, auto } = buildAliases(endpoints, inputs.previous, notes);
  const catalog: CatalogData = {
    pricesAsOf: inputs.tableSource.date,
    generatedAt: inputs.day,
    priceSource: `USD per million tokens, standard tier, from ${inputs.tableSource.name} ${inputs.tableSource.version} (${inputs.tableSource.date}); models it lacks from ${inputs.modelsDevSource.name} ${inputs.modelsDevSource.version} (${inputs.modelsDevSource.date}) or ${inputs.previousSource.name} (${inputs.previousSource.date}). Each model's sources field names where its facts come from.`,
    sources: [inputs.tableSource, inputs.modelsDevSource, inputs.previousSource],
    aliases,
    embeddingModels,
    auto,
    endpoints,
  };
  return { catalog: catalogDataSchema.parse(catalog), notes };
}

function buildProvider(provider: string, policy: ProviderPolicy, inputs: CatalogInputs, notes: string[]): CatalogEndpointData[] {
  const tableModels = inputs.table.find((p) => p.id === policy.tableId)?.models ?? [];
  if (tableModels.length === 0) notes.push(`${provider}: the price table has no "${policy.tableId}" provider`);
  const modelsDev = Object.values(inputs.modelsDev[policy.modelsDevId]?.models ?? {});
  const previous = inputs.previous.endpoints.filter((e) => e.provider === provider);
  const kept = (id: string) => policy.include.test(id) && !policy.exclude.some((r) => r.test(id));
  // The table entry that prices an id: the one of that id, else the first whose rules cover it (genai-prices' order).
  const owner = (id: string) => tableModels.find((m) => m.id === id) ?? tableModels.find((m) => matchesModelId(m.match, id));
  const out = new Map<string, CatalogEndpointData>();
  const context = { provider, policy, inputs, out };

  for (const model of tableModels) {
    if (!kept(model.id) || model.deprecated) continue;
    const embedding = isEmbedding(model.id);
    const prices = mapTablePrices(pricesOn(model, inputs.day), embedding);
    if (!prices || (prices.inputPrice === 0 && prices.outputPrice === 0)) {
      notes.push(`${provider}/${model.id}: the table gives no price; left to discovery (price unknown)`);
      continue;
    }
    const ids = [policy.keepIds?.[model.id] ?? model.id, ...namedIds(model.match).filter((id) => id !== model.id && policy.listNamed?.test(id))];
    for (const [index, id] of ids.entries()) {
      const claims = (other: string) => owner(other) === model;
      addEndpoint(context, id, embedding, {
        prices,
        priceSource: inputs.tableSource.id,
        laterPrices: laterPriceChanges(model, inputs.day).flatMap((from) => {
          const later = mapTablePrices(pricesOn(model, from), embedding);
          return later ? [{ from, ...later }] : [];
        }),
        tableWindow: model.context_window,
        // The main entry carries the table's rules; a listed spelling is matched by its own id.
        match: index === 0 ? model.match : { equals: id },
        previous: previous.find((e) => e.model === id) ?? (index === 0 ? previous.find((e) => claims(e.model)) : undefined),
        modelsDev: modelsDev.find((m) => m.id === id || (index === 0 && m.id === model.id)) ?? (index === 0 ? modelsDev.find((m) => claims(m.id)) : undefined),
      });
    }
  }
  for (const model of modelsDev) {
    if (out.has(model.id) || owner(model.id) || !kept(model.id)) continue;
    const prices = modelsDevPrices(model, isEmbedding(model.id));
    if (!prices) continue;
    addEndpoint(context, model.id, isEmbedding(model.id), { prices, priceSource: inputs.modelsDevSource.id, modelsDev: model, previous: previous.find((e) => e.model === model.id) });
  }
  for (const entry of previous) {
    if (out.has(entry.model) || !kept(entry.model)) continue;
    if (owner(entry.model)) {
      notes.push(`${provider}/${entry.model}: the table prices it under an entry Patchbay leaves out (retired or unpriced)`);
      continue;
    }
    addEndpoint(context, entry.model, entry.capabilities.includes('embeddings'), { prices: previousPrices(entry), priceSource: inputs.previousSource.id, previous: entry });
  }
  return [...out.values()];
}

interface Known {
  prices: EndpointPrices;
  priceSource: string;
  laterPrices?: LaterPrice[];
  tableWindow?: number;
  match?: CatalogEndpointData['match'];
  previous?: CatalogEndpointData;
  modelsDev?: ModelsDevModel;
}

function addEndpoint(
  { provider, policy, inputs, out }: { provider: string; policy: ProviderPolicy; inputs: CatalogInputs; out: Map<string, CatalogEndpointData> },
  model: string,
  embedding: boolean,
  known: Known,
): void {
  const previousId = inputs.previousSource.id;
  const modelsDevId = inputs.modelsDevSource.id;
  const window = pickWindow([
    [inputs.tableSource.id, known.tableWindow],
    [previousId, known.previous?.contextWindow],
    [modelsDevId, known.modelsDev?.limit?.context],
  ]);
  const maxOutput = known.previous?.maxOutput ? ([previousId, known.previous.maxOutput] as const) : known.modelsDev?.limit?.output ? ([modelsDevId, known.modelsDev.limit.output] as const) : undefined;
  const derived = deriveCapabilities(provider, model, policy, embedding, { previous: known.previous, modelsDev: known.modelsDev, previousId, modelsDevId });
  const nativeCompletions = known.previous ? known.previous.nativeCompletions : !embedding && policy.nativeCompletions;
  out.set(model, {
    provider,
    model,
    ...known.prices,
    ...(known.laterPrices?.length ? { laterPrices: known.laterPrices } : {}),
    contextWindow: window?.[1] ?? 0,
    maxOutput: embedding ? 0 : (maxOutput?.[1] ?? 0),
    ...(known.previous?.dimensions ? { dimensions: known.previous.dimensions } : {}),
    ...(nativeCompletions ? { nativeCompletions: true } : {}),
    capabilities: derived.capabilities,
    ...(derived.reasoningEfforts ? { reasoningEfforts: derived.reasoningEfforts } : {}),
    ...(known.match ? { match: known.match } : {}),
    sources: {
      price: known.priceSource,
      ...(window ? { contextWindow: window[0] } : {}),
      ...(maxOutput && !embedding ? { maxOutput: maxOutput[0] } : {}),
      capabilities: derived.source,
    },
  });
}

/**
 * The context window: the price table's, unless the two other sources agree on another value
 * (the table rounds some: 1,000,000 for gpt-4.1's 1,047,576); else whichever source has one.
 */
export function pickWindow(candidates: [string, number | undefined][]): [string, number] | undefined {
  const known = candidates.filter((c): c is [string, number] => typeof c[1] === 'number' && c[1] > 0);
  if (known.length === 0) return undefined;
  const [first, ...others] = known;
  if (others.length === 2 && others[0][1] === others[1][1] && others[0][1] !== first[1]) return [`${others[0][0]}+${others[1][0]}`, others[0][1]];
  return first;
}

function modelsDevPrices(model: ModelsDevModel, embedding: boolean): EndpointPrices | null {
  const cost = model.cost;
  if (cost?.input === undefined || (cost.output === undefined && !embedding) || (cost.input === 0 && !cost.output)) return null;
  return {
    inputPrice: cost.input,
    outputPrice: cost.output ?? 0,
    ...(cost.cache_read !== undefined ? { cacheReadPrice: cost.cache_read } : {}),
    ...(cost.cache_write !== undefined ? { cacheWritePrice: cost.cache_write } : {}),
  };
}

function previousPrices(entry: CatalogEndpointData): EndpointPrices {
  const { inputPrice, outputPrice, cacheReadPrice, cacheWritePrice, cacheWrite1hPrice } = entry;
  return { inputPrice, outputPrice, ...(cacheReadPrice !== undefined ? { cacheReadPrice } : {}), ...(cacheWritePrice !== undefined ? { cacheWritePrice } : {}), ...(cacheWrite1hPrice !== undefined ? { cacheWrite1hPrice } : {}) };
}

export function isEmbedding(id: string): boolean {
  return /embed|bge-|\bm2-bert|gte-/i.test(id);
}

