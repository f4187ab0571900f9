import type { Capability, Catalog, Endpoint } from '../catalog/load-catalog.ts';
import type { Strategy } from '../config/config-schema.ts';
import type { PatchbayConfig } from '../config/load-config.ts';
import { InvalidRequestError, PermissionDeniedError } from '../errors/patchbay-error.ts';
import { chooseAutoGroups } from './choose-auto-tier.ts';
import { roughTokens } from './estimate-tokens.ts';
import { resolveModel, splitStrategySuffix } from './resolve-model.ts';
import type { Operation, RouteRequest, Skip } from './route-plan.ts';

const OPERATION_PATH: Record<Operation, string> = { chat: '/v1/chat/completions', completions: '/v1/completions', embeddings: '/v1/embeddings' };

export interface RouteGroup {
  label: string;
  endpoints: Endpoint[];
}

/** A request's candidate groups before health and context: the same for every request with the same model, fallbacks and needs. */
export interface RouteShape {
  /** From a `:strategy` suffix on the model, if any. */
  strategy: Strategy | undefined;
  reason: string;
  /** `provider/model`: one endpoint, never moved by stickiness. */
  pinned: boolean;
  /** `auto` chose its tiers for this prompt (not kept: the tier follows the prompt). */
  auto: boolean;
  /** Each model as named, with all its endpoints: what a key's model restriction is checked against. */
  named: RouteGroup[];
  /** Capable endpoints: the primary group, then each fallback (or the auto tiers). */
  groups: RouteGroup[];
  /** Endpoints dropped for a capability the request needs (kept for explain). */
  incapable: Skip[];
  /** The smallest context window among the candidates (Infinity when none states one). */
  smallestContext: number;
}

/**
 * The model's endpoints, then each fallback model's: the X-Patchbay-Fallback header's when the
 * request sends one, else the configured chain for exactly this model name (routing.fallbacks).
 * `auto` picks its two tiers from the prompt. Then capability: an endpoint that cannot do what the
 * request asks is dropped, and if the primary group has none left, the client asked for the
 * impossible (400) unless the caller only explains (`lenient`). Pure: reads the catalog and config.
 */
export function resolveRouteGroups(request: RouteRequest, catalog: Catalog, config: PatchbayConfig, lenient = false): RouteShape {
  const base = splitStrategySuffix(request.model);
  const chain = request.fallbackModels.length > 0 ? request.fallbackModels : (config.fallbacks.get(base.name) ?? []);
  const param = request.fallbackModels.length > 0 ? 'X-Patchbay-Fallback' : `routing.fallbacks.${base.name}`;
  const fallbacks = chain.map((model, index) => ({
    label: splitStrategySuffix(model).name,
    endpoints: resolveModel(model, catalog, config.providers, `${param}[${index}]`).endpoints,
  }));
  let named: RouteGroup[];
  let strategy: Strategy | undefined;
  let reason: string;
  let auto = false;
  let pinned = false;
  if (base.name === 'auto' && request.operation !== 'embeddings' && !catalog.customAliases.has('auto')) {
    // auto's tiers narrowed to what the key may use (a 403 when none of its models is in them).
    const choice = chooseAutoGroups(
      catalog,
      {
        promptTokens: roughTokens(request.prompt),
        maxTokens: request.maxTokens,
        tools: request.needs.some((n) => n.capability === 'tools'),
        images: request.needs.some((n) => n.capability === 'images'),
      },
      request.allowedModels,
      (name) => resolveModel(name, catalog, config.providers).endpoints,
    );
    named = [...choice.groups, ...fallbacks];
    strategy = base.strategy;
    reason = `auto: ${choice.reason}`;
    auto = true;
  } else {
    const primary = resolveModel(request.model, catalog, config.providers);
    const via = request.fallbackModels.length === 0 && chain.length > 0 ? `; fallback chain ${chain.join(', ')}` : '';
    reason = (primary.pinned ? `pinned to ${primary.endpoints[0].id}` : `${catalog.customAliases.has(base.name) ? 'custom alias' : 'alias'} ${base.name}`) + via;
    named = [{ label: base.name, endpoints: primary.endpoints }, ...fallbacks];
    strategy = primary.strategy;
    pinned = primary.pinned;
  }
  const incapable: Skip[] = [];
  const groups = named.map((group, i) => ({ label: group.label, endpoints: filterCapable(group.endpoints, request, i === 0 && !lenient, incapable) }));
  return { strategy, reason, pinned, auto, named, groups, incapable, smallestContext: smallestContext(groups) };
}

/**
 * The key's model restriction: each model the request names (a fallback's too) must be allowed by
 * name, or else only its endpoints whose ids are allowed stay. `auto`'s own tiers are Patchbay's
 * choice, not the caller's: only its fallbacks are checked. Returns the endpoint ids left out (null:
 * no restriction). A model with none left is a 403, unless the caller explains (`skips`): then
 * every endpoint left out is recorded there with the reason.
 */
export function checkAllowedModels(request: RouteRequest, shape: RouteShape, skips?: Skip[]): Set<string> | null {
  const allowed = request.allowedModels;
  if (!allowed) return null;
  const refused = new Set<string>();
  for (const group of shape.named) {
    if (shape.auto && group.label === 'auto') continue;
    const name = splitStrategySuffix(group.label).name;
    if (allowed.includes(name)) continue;
    if (!skips && !group.endpoints.some((e) => allowed.includes(e.id))) {
      throw new PermissionDeniedError(`This Patchbay key may not use the model "${name}"; it is limited to: ${allowed.join(', ')}.`, 'model_not_allowed', 'model');
    }
    for (const e of group.endpoints) {
      if (allowed.includes(e.id) || refused.has(e.id)) continue;
      refused.add(e.id);
      skips?.push({ endpoint: e, code: 'not_allowed_for_key', reason: `the key may not use "${group.label}" (limited to ${allowed.join(', ')})` });
    }
  }
  return refused;
}

function filterCapable(endpoints: Endpoint[], request: RouteRequest, strict: boolean, incapable: Skip[]): Endpoint[] {
  const capable: Endpoint[] = [];
  for (const endpoint of endpoints) {
    const missing = [request.operation as Capability, ...request.needs.map((n) => n.capability)].filter((c) => !endpoint.capabilities.has(c));
    if (missing.length === 0) capable.push(endpoint);
    else incapable.push({ endpoint, code: 'capability_missing', reason: `${endpoint.id} cannot do ${missing.join(', ')}` });
  }
  if (capable.length > 0 || !strict || endpoints.length === 0) return capable;
  if (!endpoints.some((e) => e.capabilities.has(request.operation))) {
    throw new InvalidRequestError(
      `The model "${request.model}" cannot be used with ${OPERATION_PATH[request.operation]}; GET /v1/models shows each model's capabilities.`,
      'model',
      'model_not_supported',
    );
  }
  // The first need that no endpoint able to do the operation has names the parameter at fault.
  let able = endpoints.filter((e) => e.capabilities.has(request.operation));
  for (const need of request.needs) {
    const next = able.filter((e) => e.capabilities.has(need.capability));
    if (next.length === 0) {
      throw new InvalidRequestError(
        `The model "${request.model}" does not support '${need.param}' (${need.capability}); choose a model whose capabilities include it.`,
        need.param,
        'unsupported_parameter',
      );
    }
    able = next;
  }
  return capable;
}

/** The smallest context window among the groups' endpoints, or Infinity when none is limited. */
function smallestContext(groups: RouteGroup[]): number {
  let smallest = Number.POSITIVE_INFINITY;
  for (const group of groups) for (const endpoint of group.endpoints) if (endpoint.contextWindow > 0 && endpoint.contextWindow < smallest) smallest = endpoint.contextWindow;
  return smallest;
}
