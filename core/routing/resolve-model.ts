import { STRATEGIES, type Strategy } from '../config/config-schema.ts';
import type { ResolvedProvider } from '../config/load-config.ts';
import { endpointForProviderModel } from '../catalog/discovered-endpoints.ts';
import { findPricedModel } from '../catalog/find-priced-model.ts';
import { defaultEndpoint, type Catalog, type Endpoint } from '../catalog/load-catalog.ts';
import { InvalidRequestError, ModelNotFoundError } from '../errors/patchbay-error.ts';
import { closeMatches } from './close-matches.ts';

export interface ResolvedModel {
  /** The model string as the client sent it. */
  requested: string;
  /** True for `provider/model`: never falls back to another provider. */
  pinned: boolean;
  /** Strategy from a `:strategy` suffix, if any. */
  strategy: Strategy | undefined;
  endpoints: Endpoint[];
}

const strategyNames: readonly string[] = STRATEGIES;

/** `llama-3.3-70b:cost` -> name and strategy; a suffix that is not a strategy stays part of the name (`ollama/llama3:8b`). */
export function splitStrategySuffix(model: string): { name: string; strategy: Strategy | undefined } {
  const colon = model.lastIndexOf(':');
  const suffix = colon > 0 ? model.slice(colon + 1) : '';
  return strategyNames.includes(suffix) ? { name: model.slice(0, colon), strategy: suffix as Strategy } : { name: model, strategy: undefined };
}

/**
 * Turns the `model` field into the endpoints that could serve it. Pure: reads the catalog and
 * the provider table only.
 */
export function resolveModel(model: string, catalog: Catalog, providers: Map<string, ResolvedProvider>, param = 'model'): ResolvedModel {
  const { name, strategy } = splitStrategySuffix(model);
  const colon = model.lastIndexOf(':');
  if (!strategy && colon > 0 && !model.includes('/')) {
    // Unprefixed names never contain a colon of their own, so this was meant as a strategy.
    throw new InvalidRequestError(
      `Unknown routing strategy "${model.slice(colon + 1)}" in ${param} "${model}". Use one of: ${STRATEGIES.join(', ')}.`,
      param,
      'invalid_strategy',
    );
  }

  // The user's own aliases come first: one may deliberately take the name of a built-in alias or model.
  const custom = catalog.customAliases.get(name);
  if (custom) return { requested: model, pinned: false, strategy, endpoints: custom };

  const aliasTargets = catalog.aliases.get(name) ?? catalog.embeddingModels.get(name);
  if (aliasTargets) {
    return { requested: model, pinned: false, strategy, endpoints: aliasTargets.map((id) => catalog.endpoints.get(id)!).filter(Boolean) };
  }

  const slash = name.indexOf('/');
  const provider = slash > 0 ? providers.get(name.slice(0, slash)) : undefined;
  const providerModel = slash > 0 ? name.slice(slash + 1) : '';
  if (provider && providerModel) {
    const known = catalog.endpoints.get(name);
    if (known) return { requested: model, pinned: true, strategy, endpoints: [known] };
    // A user's own endpoint (Ollama, vLLM ...) serves whatever models it has: pass the id through.
    if (!provider.builtin) return { requested: model, pinned: true, strategy, endpoints: [defaultEndpoint(provider.name, providerModel)] };
  }

  // A provider's own model id, as tools send it (claude-sonnet-4-5-20250929, gpt-4.1): it names one
  // endpoint when exactly one provider serves a model by that id.
  const native = [...catalog.endpoints.values()].filter((e) => e.model === name);
  if (native.length === 1) return { requested: model, pinned: true, strategy, endpoints: native };
  if (native.length > 1) {
    throw new ModelNotFoundError(
      `The model "${name}" is served by ${native.length} providers; say which with a provider prefix (${native.map((e) => `"${e.id}"`).join(', ')}) or use an alias.`,
      param,
    );
  }
  // A built-in provider's id that neither the table nor its own list knows (a model newer than both):
  // sent to that provider, priced by the table's rules for a dated id, else with its price unknown.
  // Patchbay does not refuse what the provider might serve; the provider's own 404 answers if not.
  if (provider && providerModel) return { requested: model, pinned: true, strategy, endpoints: [endpointForProviderModel(catalog, provider.name, providerModel)] };
  // A dated or respelled id (gpt-5.1-2025-11-13) the table's rules give to exactly one provider.
  const ruled = [...catalog.priceRules.keys()].flatMap((p) => (providers.has(p) ? [findPricedModel(catalog, p, name)] : [])).filter((e) => e !== undefined);
  if (ruled.length === 1) return { requested: model, pinned: true, strategy, endpoints: ruled };
  const suggestions = closeMatches(name, [
    ...catalog.customAliases.keys(),
    ...catalog.aliases.keys(),
    ...catalog.embeddingModels.keys(),
    ...catalog.endpoints.keys(),
    ...[...catalog.endpoints.values()].map((e) => e.model),
  ]);
  const hint = suggestions.length > 0 ? ` Did you mean ${suggestions.map((s) => `"${s}"`).join(', ')}?` : '';
  throw new ModelNotFoundError(
    `The model "${model}" does not exist.${hint || ` Use a provider-prefixed id such as "openai/gpt-4o", or an alias such as ${[...catalog.aliases.keys()]
      .slice(0, 4)
      .map((a) => `"${a}"`)
      .join(', ')}.`} GET /v1/models lists them all.`,
    param,
  );
}

/** Models X-Patchbay-Fallback may name: each is a full routing attempt (and its own candidates). */
export const MAX_FALLBACK_MODELS = 5;
const MAX_FALLBACK_MODEL_CHARS = 256;
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Parses X-Patchbay-Fallback: comma-separated model ids tried after the primary, in order. */
export function parseFallbackHeader(value: string | undefined): string[] {
  if (!value) return [];
  const models = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (models.length > MAX_FALLBACK_MODELS) {
    throw new InvalidRequestError(`The X-Patchbay-Fallback header names ${models.length} models; at most ${MAX_FALLBACK_MODELS} are allowed.`, 'X-Patchbay-Fallback', 'too_many_fallback_models');
  }
  for (const model of models) {
    if (model.length > MAX_FALLBACK_MODEL_CHARS || CONTROL.test(model)) {
      throw new InvalidRequestError(
        `The X-Patchbay-Fallback header names a model id that is longer than ${MAX_FALLBACK_MODEL_CHARS} characters or holds control characters; name models as in the "model" field.`,
        'X-Patchbay-Fallback',
        'invalid_fallback_model',
      );
    }
  }
  return models;
}

/** Parses X-Patchbay-Strategy; an unknown name is the client's mistake, so say which names exist. */
export function parseStrategyHeader(value: string | undefined): Strategy | undefined {
  if (value === undefined || value === '') return undefined;
  const name = value.trim().toLowerCase();
  if (!strategyNames.includes(name)) {
    throw new InvalidRequestError(
      `Unknown routing strategy "${value}" in the X-Patchbay-Strategy header. Use one of: ${STRATEGIES.join(', ')}.`,
      'X-Patchbay-Strategy',
      'invalid_strategy',
    );
  }
  return name as Strategy;
}
