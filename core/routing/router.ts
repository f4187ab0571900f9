import type { Capability, Catalog, Endpoint } from '../catalog/load-catalog.ts';
import type { Strategy } from '../config/config-schema.ts';
import type { PatchbayConfig, ResolvedProvider } from '../config/load-config.ts';
import { ContextLengthError, InvalidRequestError, PatchbayError, PermissionDeniedError } from '../errors/patchbay-error.ts';
import { AllProvidersFailedError, ProviderError } from '../errors/provider-error.ts';
import type { CancelSignal } from '../providers/cancel-signal.ts';
import type { ProviderAdapter, UpstreamCall } from '../providers/provider-adapter.ts';
import type { SecretStore } from '../secrets/secret-store.ts';
import { chooseAutoGroups } from './choose-auto-tier.ts';
import { countTokens } from '../tokens/count-tokens.ts';
import { MAX_COUNT_BYTES } from '../tokens/token-counter.ts';
import { maxTokens, minTokens, roughTokens, type PromptSize } from './estimate-tokens.ts';
import type { HealthTracker } from './health-tracker.ts';
import { explainRoute, type ExplainRequest, type Ineligibility, type NamedGroups, type RouteExplanation } from './explain-route.ts';
import { rankEndpoints } from './rank-endpoints.ts';
import { resolveModel, splitStrategySuffix } from './resolve-model.ts';
import type { RouteTrace } from './route-trace.ts';

export type Operation = 'chat' | 'completions' | 'embeddings';

const OPERATION_PATH: Record<Operation, string> = { chat: '/v1/chat/completions', completions: '/v1/completions', embeddings: '/v1/embeddings' };
const PROMPT_PARAM: Record<Operation, string> = { chat: 'messages', completions: 'prompt', embeddings: 'input' };
/** Output assumed for cost ranking when the request sets no max_tokens. */
export const ASSUMED_COMPLETION_TOKENS = 256;

export interface RouteRequest {
  operation: Operation;
  model: string;
  /** Capabilities the request needs beyond the operation itself, with the parameter that needs each. */
  needs: { capability: Capability; param: string }[];
  strategy: Strategy | undefined;
  fallbackModels: string[];
  stream: boolean;
  prompt: PromptSize;
  /** Output the caller wants at most (max_tokens), if it said. */
  maxTokens: number | undefined;
  /** The key's model restriction (ids or aliases), or null for all. */
  allowedModels: string[] | null;
}

export type { ExplainRequest, RouteExplanation, SkipCode } from './explain-route.ts';

/** An endpoint left out of a request's route, and why. */
interface Skip extends Ineligibility {
  endpoint: string;
}

export interface RoutePlan {
  strategy: Strategy;
  candidates: Endpoint[];
  reason: string;
  promptTokens: number;
}

export interface RouterDeps {
  catalog: Catalog;
  config: PatchbayConfig;
  secrets: SecretStore;
  adapters: Partial<Record<ResolvedProvider['protocol'], ProviderAdapter>>;
  health: HealthTracker;
  sleep?: (ms: number) => Promise<void>;
}

/** Plan shapes kept at most; a client sending ever-new model names only ever refills the cache. */
const MAX_CACHED_SHAPES = 1000;

interface PlanShape {
  /** From a `:strategy` suffix on the model, if any. */
  strategy: Strategy | undefined;
  reason: string;
  /** Capable endpoints: the primary group, then each fallback (or the auto tiers). */
  groups: { label: string; endpoints: Endpoint[] }[];
  /** What a key's model restriction is checked against: each model as named, with all its endpoints. */
  allowed: { label: string; endpoints: Endpoint[] }[];
  /** The smallest context window among the candidates (Infinity when none states one). */
  smallestContext: number;
}

/** The smallest context window among the groups' endpoints, or Infinity when none is limited. */
function smallestContext(groups: { endpoints: Endpoint[] }[]): number {
  let smallest = Number.POSITIVE_INFINITY;
  for (const group of groups) for (const endpoint of group.endpoints) if (endpoint.contextWindow > 0 && endpoint.contextWindow < smallest) smallest = endpoint.contextWindow;
  return smallest;
}

/**
 * Resolves a request to ranked candidate endpoints and tries them in turn. Fallback happens only
 * in `execute`, and only before the attempt function returns: a stream's first chunk is pulled
 * inside the attempt, so once `execute` returns, the answer is committed to the client.
 */
export class Router {
  private readonly deps: RouterDeps;
  private readonly turns = new Map<string, number>();
  private readonly shapes = new Map<string, PlanShape>();
  private readonly healthOf: (id: string) => ReturnType<HealthTracker['health']>;
  private revision: number;

  constructor(deps: RouterDeps) {
    this.deps = deps;
    this.healthOf = (id) => deps.health.health(id);
    this.revision = deps.config.revision;
  }

  /** The config changed (aliases, fallbacks, providers): what was worked out per model no longer holds. */
  private forgetShapes(): void {
    this.shapes.clear();
    this.revision = this.deps.config.revision;
  }

  /**
   * The ranked candidates for a request. Synchronous unless the prompt might not fit a candidate's
   * context window: only then may it wait for a token count (a promise, from the counting thread,
   * at most COUNT_BUDGET_MS). The hot path does not pay for a promise it does not need.
   */
  plan(request: RouteRequest): RoutePlan | Promise<RoutePlan> {
    if (this.deps.config.paused) throw pausedError();
    if (this.revision !== this.deps.config.revision) this.forgetShapes();
    const shape = this.shapeFor(request);
    const strategy = request.strategy ?? shape.strategy ?? this.deps.config.strategy;
    const rough = roughTokens(request.prompt);
    // Only a prompt that might not fit the smallest context window among the candidates is looked at closer.
    if (maxTokens(request.prompt) + (request.maxTokens ?? 0) > shape.smallestContext) {
      const groups = shape.groups.map((group) => ({ ...group }));
      return this.fitContext(groups, request, rough).then((promptTokens) => this.rank(request, shape, strategy, groups, promptTokens));
    }
    return this.rank(request, shape, strategy, shape.groups, rough);
  }

  private rank(request: RouteRequest, shape: PlanShape, strategy: Strategy, groups: PlanShape['groups'], promptTokens: number): RoutePlan {
    let reason = shape.reason;
    const skipped: Skip[] = [];
    const ranked: Endpoint[] = [];
    for (const group of groups) {
      const eligible: Endpoint[] = [];
      for (const endpoint of group.endpoints) if (this.isEligible(endpoint, skipped) && !hasId(ranked, endpoint.id)) eligible.push(endpoint);
      const turn = this.nextTurn(group.label, eligible.length);
      const order = rankEndpoints(eligible, {
        strategy,
        stream: request.stream,
        promptTokens,
        completionTokens: request.maxTokens ?? ASSUMED_COMPLETION_TOKENS,
        weights: this.deps.config.weights,
        health: this.healthOf,
        turn,
      });
      if (ranked.length === 0 && order.length > 0) reason += `; ${strategy} chose ${order[0].endpoint.id}`;
      for (const entry of order) ranked.push(entry.endpoint);
    }
    if (ranked.length === 0) {
      throw new AllProvidersFailedError(`No provider can serve "${request.model}" right now: ${[...new Set(skipped.map((s) => s.reason))].join('; ')}.`, [], 503, 'no_eligible_provider');
    }
    // The route's explanation travels with the request (header, usage row): what was left out and why.
    if (skipped.length > 0) reason += `; skipped ${skipped.map((s) => `${s.endpoint} (${s.code})`).join(', ')}`;
    return { strategy, candidates: ranked, reason, promptTokens };
  }

  /**
   * The request's candidate groups, capability-filtered, before health and context: the same for
   * every request with the same model, fallbacks and needs, so they are worked out once and kept
   * until the config changes (its revision moves). `auto` depends on the prompt and is not kept.
   * The key's model restriction is checked on every request.
   */
  private shapeFor(request: RouteRequest): PlanShape {
    let key = `${request.operation}\u0000${request.model}`;
    for (const need of request.needs) key += `\u0000${need.capability}`;
    for (const model of request.fallbackModels) key += `\u0001${model}`;
    let shape = this.shapes.get(key);
    if (!shape) {
      const named = this.namedGroups(request);
      // `auto`'s own tiers are Patchbay's choice, not the caller's: only its fallbacks are checked against the key.
      for (const group of named.groups) if (!(named.auto && group.label === 'auto')) this.checkAllowed(request, group.label, group.endpoints);
      const groups = this.capableGroups(named.groups, request);
      shape = { strategy: named.strategy, reason: named.reason, groups, allowed: named.auto ? [] : named.groups, smallestContext: smallestContext(groups) };
      // `auto` is never kept: its tier follows the prompt.
      if (named.auto) return shape;
      if (this.shapes.size >= MAX_CACHED_SHAPES) this.shapes.clear();
      this.shapes.set(key, shape);
    } else if (request.allowedModels) {
      for (const group of shape.allowed) this.checkAllowed(request, group.label, group.endpoints);
    }
    return shape;
  }

  /**
   * The model's endpoints, then each fallback model's: the X-Patchbay-Fallback header's when the
   * request sends one, else the configured chain for exactly this model name (routing.fallbacks).
   * `auto` picks its two tiers from the prompt.
   */
  private namedGroups(request: RouteRequest): NamedGroups {
    const { catalog, config } = this.deps;
    const base = splitStrategySuffix(request.model);
    const chain = request.fallbackModels.length > 0 ? request.fallbackModels : (config.fallbacks.get(base.name) ?? []);
    const param = request.fallbackModels.length > 0 ? 'X-Patchbay-Fallback' : `routing.fallbacks.${base.name}`;
    const fallbacks = chain.map((model, index) => ({
      label: splitStrategySuffix(model).name,
      endpoints: resolveModel(model, catalog, config.providers, `${param}[${index}]`).endpoints,
    }));
    if (base.name === 'auto' && request.operation !== 'embeddings' && !catalog.customAliases.has('auto')) {
      const choice = chooseAutoGroups(catalog, {
        promptTokens: roughTokens(request.prompt),
        maxTokens: request.maxTokens,
        tools: request.needs.some((n) => n.capability === 'tools'),
        images: request.needs.some((n) => n.capability === 'images'),
      }, request.allowedModels, (name) => resolveModel(name, catalog, config.providers).endpoints);
      return { groups: [...choice.groups, ...fallbacks], strategy: base.strategy, reason: `auto: ${choice.reason}`, auto: true };
    }
    const primary = resolveModel(request.model, catalog, config.providers);
    const via = request.fallbackModels.length === 0 && chain.length > 0 ? `; fallback chain ${chain.join(', ')}` : '';
    const reason = (primary.pinned ? `pinned to ${primary.endpoints[0].id}` : `${catalog.customAliases.has(base.name) ? 'custom alias' : 'alias'} ${base.name}`) + via;
    return { groups: [{ label: base.name, endpoints: primary.endpoints }, ...fallbacks], strategy: primary.strategy, reason, auto: false };
  }

  /** Capability: if the primary group cannot do what was asked at all, that is the caller's mistake (400). */
  private capableGroups(groups: { label: string; endpoints: Endpoint[] }[], request: RouteRequest): { label: string; endpoints: Endpoint[] }[] {
    return groups.map((group, i) => ({ label: group.label, endpoints: this.filterCapable(group.endpoints, request, i === 0) }));
  }

  private nextTurn(label: string, size: number): number {
    if (size <= 1) return 0;
    const turn = this.turns.get(label) ?? 0;
    this.turns.set(label, turn + 1);
    return turn;
  }

  private checkAllowed(request: RouteRequest, model: string, endpoints: Endpoint[]): void {
    const allowed = request.allowedModels;
    if (!allowed) return;
    const name = splitStrategySuffix(model).name;
    if (allowed.includes(name) || endpoints.some((e) => allowed.includes(e.id))) return;
    throw new PermissionDeniedError(`This Patchbay key may not use the model "${name}"; it is limited to: ${allowed.join(', ')}.`, 'model_not_allowed', 'model');
  }

  /** Drops endpoints that cannot do what the request asks; if the primary group has none left, the client asked for the impossible: 400. */
  private filterCapable(endpoints: Endpoint[], request: RouteRequest, primary: boolean): Endpoint[] {
    let capable = endpoints.filter((e) => e.capabilities.has(request.operation));
    if (capable.length === 0 && primary) {
      throw new InvalidRequestError(
        `The model "${request.model}" cannot be used with ${OPERATION_PATH[request.operation]}; GET /v1/models shows each model's capabilities.`,
        'model',
        'model_not_supported',
      );
    }
    for (const need of request.needs) {
      const next = capable.filter((e) => e.capabilities.has(need.capability));
      if (next.length === 0 && primary && capable.length > 0) {
        throw new InvalidRequestError(
          `The model "${request.model}" does not support '${need.param}' (${need.capability}); choose a model whose capabilities include it.`,
          need.param,
          'unsupported_parameter',
        );
      }
      capable = next;
    }
    return capable;
  }

  /**
   * Drops endpoints whose context window cannot hold the prompt plus the wanted output. The byte
   * bounds decide first; the tokenizer runs (on its thread, within its budget and size cap) only
   * for a prompt the bounds leave undecided. An endpoint is dropped only on a count that proves the
   * prompt too long (an exact count, or the lower bound): when the count is unknown or an estimate,
   * an endpoint the prompt might fit is kept and the upstream decides. Never a wrong refusal.
   */
  private async fitContext(groups: { endpoints: Endpoint[] }[], request: RouteRequest, rough: number): Promise<number> {
    const output = request.maxTokens ?? 0;
    const prompt = request.prompt;
    const all = groups.flatMap((g) => g.endpoints);
    const lower = minTokens(prompt);
    const upper = maxTokens(prompt);
    // Token ids alone are an exact count.
    let proven = lower;
    let exact = lower === upper;
    let estimate = rough;
    // The output asked for counts up to each endpoint's own limit: a larger max_tokens is lowered to it (limit-max-tokens.ts).
    const outputFor = (e: Endpoint) => (e.maxOutput > 0 ? Math.min(output, e.maxOutput) : output);
    const undecided = all.some((e) => e.contextWindow > 0 && lower + outputFor(e) <= e.contextWindow && upper + outputFor(e) > e.contextWindow);
    if (!exact && undecided && prompt.bytes <= MAX_COUNT_BYTES) {
      const counted = await countTokens(prompt.pieces.join('\n'));
      if (counted?.exact) {
        proven = estimate = prompt.ids + counted.tokens;
        exact = true;
      } else if (counted) {
        estimate = prompt.ids + counted.tokens;
      }
    }
    let dropped = 0;
    for (const group of groups) {
      const before = group.endpoints.length;
      group.endpoints = group.endpoints.filter((e) => e.contextWindow === 0 || proven + outputFor(e) <= e.contextWindow);
      dropped += before - group.endpoints.length;
    }
    if (groups.every((g) => g.endpoints.length === 0) && dropped > 0) {
      const largest = Math.max(...all.map((e) => e.contextWindow));
      const widest = all.find((e) => e.contextWindow === largest)!;
      const wanted = outputFor(widest);
      throw new ContextLengthError(
        `The prompt is ${exact ? 'about' : 'at least'} ${proven} tokens${wanted ? ` and max_tokens asks for ${wanted} more` : ''}, which exceeds the largest context window of "${request.model}" (${largest} tokens). Shorten the prompt, lower max_tokens, or choose a model with a larger context_window.`,
        PROMPT_PARAM[request.operation],
        { promptTokens: proven, outputTokens: wanted, contextWindow: largest },
      );
    }
    return exact ? proven : Math.min(Math.max(estimate, lower), upper);
  }

  private isEligible(endpoint: Endpoint, skipped: Skip[]): boolean {
    const skip = this.ineligibility(endpoint);
    if (skip) skipped.push({ endpoint: endpoint.id, code: skip.code, reason: skip.reason });
    return skip === null;
  }

  /** Why an endpoint cannot be tried right now, or null when it can. */
  private ineligibility(endpoint: Endpoint): Ineligibility | null {
    const provider = this.deps.config.providers.get(endpoint.provider);
    if (!provider) return { code: 'disabled', reason: `${endpoint.provider} is no longer configured` };
    if (!provider.enabled) return { code: 'disabled', reason: `${provider.name} is disabled in the config` };
    if (!this.deps.adapters[provider.protocol]) return { code: 'disabled', reason: `${provider.name} speaks the ${provider.protocol} protocol, which this build cannot translate` };
    if (provider.requiresKey && !this.deps.secrets.get(provider)) {
      const withheld = this.deps.secrets.withheldReason(provider);
      if (withheld) return { code: 'secret_withheld', reason: withheld };
      return { code: 'no_key', reason: `${provider.name} has no API key (${this.deps.secrets.describeSource(provider)})` };
    }
    if (!this.deps.health.isAvailable(endpoint.id)) {
      const health = this.deps.health.health(endpoint.id);
      return health.rateLimitedUntil
        ? { code: 'rate_limited', reason: `${endpoint.id} is rate limited until ${new Date(health.rateLimitedUntil).toISOString()}` }
        : { code: 'breaker_open', reason: `${endpoint.id} is failing (circuit breaker open)` };
    }
    return null;
  }

  /** What `plan` would do with a request, and why (the dashboard's "Which provider now?"); changes nothing. */
  explain(input: ExplainRequest): RouteExplanation {
    if (this.revision !== this.deps.config.revision) this.forgetShapes();
    return explainRoute(
      {
        config: this.deps.config,
        health: this.healthOf,
        turn: (label) => this.turns.get(label) ?? 0,
        namedGroups: (request) => this.namedGroups(request),
        ineligibility: (endpoint) => this.ineligibility(endpoint),
      },
      input,
    );
  }

  /** Tries the candidates in order until one answers; records every attempt in the trace and in health. */
  async execute<T>(plan: RoutePlan, trace: RouteTrace, signal: CancelSignal, stream: boolean, attempt: (adapter: ProviderAdapter, call: UpstreamCall) => Promise<T>): Promise<T> {
    const { config, secrets, adapters, health } = this.deps;
    trace.strategy = plan.strategy;
    trace.reason = plan.reason;
    let lastError: ProviderError | undefined;
    for (const endpoint of plan.candidates) {
      if (signal.aborted) break;
      if (!health.isAvailable(endpoint.id, true)) continue;
      const provider = config.providers.get(endpoint.provider);
      // A provider removed while this request was planned.
      if (!provider) continue;
      trace.endpoint = endpoint;
      const call: UpstreamCall = {
        endpoint,
        provider,
        apiKey: secrets.get(provider),
        // The provider's keys: the transport tries them within this one attempt (see keyRing).
        keys: secrets.keyRing?.(provider),
        onKey: (label) => (trace.keyLabel = label),
        signal,
        firstByteTimeoutMs: config.firstByteTimeoutMs,
        onRateLimitExhausted: (until) => health.markRateLimited(endpoint.id, until),
      };
      for (let waited = false; ; waited = true) {
        const started = performance.now();
        try {
          const value = await attempt(adapters[provider.protocol]!, call);
          const latency = round(performance.now() - started);
          trace.attempts.push({ provider: provider.name, model: endpoint.model, status: 200, error_type: null, message: null, latency_ms: latency });
          health.record(endpoint.id, { at: Date.now(), ok: true, latencyMs: latency, stream });
          return value;
        } catch (error) {
          if (!(error instanceof ProviderError)) {
            health.releaseProbe(endpoint.id);
            throw error;
          }
          // An upstream may quote the credential back in its error text: it must never reach a client, a log or a usage row.
          // (ProviderError redacts every field as it is built; this catches a message amended since.)
          error.redact();
          const latency = round(performance.now() - started);
          // A request the client cancelled says nothing about the endpoint: 499, and no health event.
          const cancelled = signal.aborted;
          trace.attempts.push({
            provider: provider.name,
            model: endpoint.model,
            status: cancelled ? 499 : error.upstreamStatus || error.status,
            error_type: cancelled ? 'cancelled' : error.type,
            message: error.message,
            latency_ms: latency,
          });
          lastError = error;
          if (cancelled) {
            health.releaseProbe(endpoint.id);
            throw error;
          }
          if (error.upstreamStatus === 429) {
            // A short retry window is usable: wait it out once on the same endpoint. A longer one is not: try elsewhere.
            if (error.retryAfterMs !== undefined && error.retryAfterMs <= config.maxRetryWaitMs && !waited) {
              await (this.deps.sleep ?? sleep)(error.retryAfterMs);
              continue;
            }
            if (error.retryAfterMs !== undefined) health.markRateLimited(endpoint.id, Date.now() + error.retryAfterMs);
            health.record(endpoint.id, { at: Date.now(), ok: false, latencyMs: latency, stream }, false);
            break;
          }
          if (!error.retryable) {
            // The endpoint answered: it is up, the request was the problem. Not a health event.
            health.releaseProbe(endpoint.id);
            throw error;
          }
          health.record(endpoint.id, { at: Date.now(), ok: false, latencyMs: latency, stream });
          break;
        }
      }
    }
    if (trace.attempts.length > 0 && trace.attempts.every((a) => a.status === 429) && lastError) {
      throw new AllProvidersFailedError(`Every provider for this model is rate limited; the last said: ${lastError.message}`, trace.attempts, 429, 'rate_limit_exceeded', lastError.retryAfterMs);
    }
    throw new AllProvidersFailedError(
      trace.attempts.length
        ? `All ${trace.attempts.length} provider attempt(s) failed; the last: ${lastError?.message}. See "attempts" for each.`
        : 'Every candidate provider became unavailable (circuit breakers open) before it could be tried.',
      trace.attempts,
      trace.attempts.length ? 502 : 503,
      trace.attempts.length ? 'all_providers_failed' : 'no_eligible_provider',
    );
  }

  /** A stream that failed after its first byte: no fallback is possible, but health must know. */
  recordStreamFailure(endpoint: Endpoint): void {
    this.deps.health.record(endpoint.id, { at: Date.now(), ok: false, latencyMs: 0, stream: true });
  }
}


function pausedError(): PatchbayError {
  return new PatchbayError('Patchbay is paused and is not routing requests. Resume it from the tray menu or the dashboard\'s Routing page (or PUT /api/routing {"paused": false}).', {
    status: 503,
    type: 'server_error',
    code: 'routing_paused',
  });
}

/** Whether an endpoint with this id is already in the list (a fallback model may share endpoints with the primary). */
function hasId(endpoints: Endpoint[], id: string): boolean {
  for (const endpoint of endpoints) if (endpoint.id === id) return true;
  return false;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
