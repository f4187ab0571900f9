import type { Catalog, Endpoint } from '../catalog/load-catalog.ts';
import type { PatchbayConfig, ResolvedProvider } from '../config/load-config.ts';
import { PatchbayError } from '../errors/patchbay-error.ts';
import type { CancelSignal } from '../providers/cancel-signal.ts';
import type { ProviderAdapter, UpstreamCall } from '../providers/provider-adapter.ts';
import type { SecretStore } from '../secrets/secret-store.ts';
import { countPrompt, mightNotFit } from './count-prompt.ts';
import { roughTokens } from './estimate-tokens.ts';
import { executeRoute, type ExecuteDeps } from './execute-route.ts';
import type { HealthTracker } from './health-tracker.ts';
import { planRoute, type PlanOptions, type PlanView } from './plan-route.ts';
import { createPlanView } from './plan-view.ts';
import { availability, expectedCost, measuredLatency } from './rank-endpoints.ts';
import { resolveRouteGroups, type RouteShape } from './resolve-route-groups.ts';
import { ASSUMED_COMPLETION_TOKENS, type ExplainRequest, type RouteExplanation, type RoutePlan, type RouteRequest } from './route-plan.ts';
import type { RequestPurpose } from './match-route-rule.ts';
import { notePurpose, routeByPurpose, type PurposeRoute } from './route-by-purpose.ts';
import type { RouteTrace } from './route-trace.ts';
import { StickyMemory } from './sticky-memory.ts';
import { stickyKey } from './stick-route.ts';

export { ASSUMED_COMPLETION_TOKENS } from './route-plan.ts';
export type { ExplainRequest, Operation, RouteExplanation, RoutePlan, RouteRequest, SkipCode } from './route-plan.ts';

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

/**
 * Routing's state and its two halves: `plan` (pure planning over a view of this state, in
 * plan-route.ts) and `execute` (the small loop in execute-route.ts). The router owns what they
 * read and write: the round-robin turns, the sticky memory, and a memo of each model's shape.
 */
export class Router {
  private readonly deps: RouterDeps;
  private executeDeps: ExecuteDeps | undefined;
  private readonly turns = new Map<string, number>();
  private readonly shapes = new Map<string, RouteShape>();
  readonly sticky: StickyMemory;
  private readonly view: PlanView;
  private revision: number;

  constructor(deps: RouterDeps) {
    this.deps = deps;
    this.revision = deps.config.revision;
    this.sticky = new StickyMemory(deps.config.stickyIdleMs);
    this.view = createPlanView({ ...deps, turns: this.turns, sticky: this.sticky });
  }

  /** routing.rules has rules: a request's purpose is worth working out. */
  get routesByPurpose(): boolean {
    return this.deps.config.rules.length > 0;
  }

  /** The config changed (aliases, fallbacks, providers): what was worked out per model no longer holds. */
  private forgetShapes(): void {
    this.shapes.clear();
    this.sticky.idleMs = this.deps.config.stickyIdleMs;
    this.revision = this.deps.config.revision;
  }

  /**
   * The ranked candidates for a request. Synchronous unless the prompt might not fit a candidate's
   * context window: only then may it wait for a token count (a promise, from the counting thread).
   * The hot path does not pay for a promise it does not need.
   */
  plan(input: RouteRequest): RoutePlan | Promise<RoutePlan> {
    if (this.deps.config.paused) throw pausedError();
    if (this.revision !== this.deps.config.revision) this.forgetShapes();
    const asked = this.deps.config.stickyIdleMs === 0 && input.sticky !== false ? { ...input, sticky: false } : input;
    const route = input.purpose ? routeByPurpose(asked, this.deps.config.rules, (r) => this.windowOf(r)) : null;
    const request = route ? route.request : asked;
    const shape = this.shapeFor(request);
    if (mightNotFit(request, shape.smallestContext)) {
      return countPrompt(request, shape).then((counted) => this.commit(planRoute(request, shape, this.view, counted), route));
    }
    return this.commit(planRoute(request, shape, this.view, { promptTokens: roughTokens(request.prompt), contextTokens: null }), route);
  }

  /** The plan's round-robin turns are taken; what the request's purpose changed is said (route-by-purpose.ts). */
  private commit(plan: RoutePlan, route: PurposeRoute | null): RoutePlan {
    for (const label of plan.turns) this.turns.set(label, (this.turns.get(label) ?? 0) + 1);
    return route ? notePurpose(plan, route, this.sticky) : plan;
  }

  /** The smallest context window of a model's endpoints (a rule weighs the prompt against it); null when the model names none Patchbay knows. */
  private windowOf(request: RouteRequest): number | null {
    try {
      const smallest = this.shapeFor(request).smallestContext;
      return Number.isFinite(smallest) && smallest > 0 ? smallest : null;
    } catch {
      return null;
    }
  }

  /**
   * The request's groups before health and context: the same for every request with the same
   * model, fallbacks and needs, so they are worked out once and kept until the config changes.
   * `auto` depends on the prompt and is not kept.
   */
  private shapeFor(request: RouteRequest): RouteShape {
    let key = `${request.operation}\u0000${request.model}`;
    for (const need of request.needs) key += `\u0000${need.capability}`;
    for (const model of request.fallbackModels) key += `\u0001${model}`;
    let shape = this.shapes.get(key);
    if (!shape) {
      shape = resolveRouteGroups(request, this.deps.catalog, this.deps.config);
      if (shape.auto) return shape;
      if (this.shapes.size >= MAX_CACHED_SHAPES) this.shapes.clear();
      this.shapes.set(key, shape);
    }
    return shape;
  }

  /** What `plan` would do with a request, and why (the dashboard's "Which provider now?"): the same planner keeping its reasons; changes nothing. */
  explain(input: ExplainRequest): RouteExplanation {
    if (this.revision !== this.deps.config.revision) this.forgetShapes();
    const promptTokens = input.promptTokens ?? 0;
    const request: RouteRequest = {
      operation: 'chat',
      model: input.model,
      needs: (input.needs ?? []).map((capability) => ({ capability, param: capability })),
      strategy: input.strategy,
      fallbackModels: [],
      stream: input.stream ?? false,
      prompt: { bytes: promptTokens * 4, pieces: [], ids: 0 },
      maxTokens: input.maxTokens,
      allowedModels: input.allowedModels ?? null,
      session: input.session ?? null,
      keyId: input.keyId ?? null,
    };
    const route = input.purpose ? routeByPurpose({ ...request, purpose: explainedPurpose(input.purpose) }, this.deps.config.rules, (r) => this.windowOf(r)) : null;
    const planned = route ? { ...route.request, purpose: null } : request;
    const shape = resolveRouteGroups(planned, this.deps.catalog, this.deps.config, true);
    const options: PlanOptions = { promptTokens, contextTokens: { proven: promptTokens, exact: true }, explain: true };
    const plan = planRoute(planned, shape, this.view, options);
    const completionTokens = input.maxTokens ?? ASSUMED_COMPLETION_TOKENS;
    const explained = plan.explained!;
    const match = route?.match ?? null;
    return {
      model: input.model,
      strategy: plan.strategy,
      reason: route?.note ? `${route.note}; ${plan.reason}` : plan.reason,
      ...(route ? { rule: match ? { index: match.rule.index, name: match.rule.name, model: match.rule.model, why: match.why } : null } : {}),
      candidates: explained.candidates.map((entry, index) => {
        const health = this.deps.health.health(entry.endpoint.id);
        return {
          rank: index + 1,
          endpoint: entry.endpoint.id,
          provider: entry.endpoint.provider,
          model: entry.endpoint.model,
          group: entry.group,
          score: entry.score,
          parts: entry.parts ? { latency: entry.parts.latency, cost: entry.parts.cost, availability: entry.parts.availability } : null,
          expected_cost_usd: expectedCost(entry.endpoint, promptTokens, completionTokens),
          latency_p50_ms: measuredLatency(health, request.stream),
          success_rate: availability(health),
        };
      }),
      skipped: explained.skipped.map((s) => ({ endpoint: s.endpoint.id, provider: s.endpoint.provider, model: s.endpoint.model, code: s.code, reason: s.reason })),
      ...(input.session !== undefined ? { sticky: plan.sticky ? { endpoint: plan.sticky.endpoint, kept: plan.sticky.kept, reason: plan.sticky.reason } : null } : {}),
    };
  }

  /** Tries the candidates in order until one answers (execute-route.ts). */
  execute<T>(plan: RoutePlan, trace: RouteTrace, signal: CancelSignal, stream: boolean, attempt: (adapter: ProviderAdapter, call: UpstreamCall) => Promise<T>, onAnswer?: (answer: T) => void): Promise<T> {
    // Built once: a spread of the deps per request was an object copied on the hot path.
    this.executeDeps ??= { ...this.deps, sticky: this.sticky, sleep: this.deps.sleep ?? sleep };
    return executeRoute(this.executeDeps, plan, trace, signal, stream, attempt, onAnswer);
  }

  /** The sticky memory's key a request would use (tests and the bench). */
  stickyKeyOf(request: RouteRequest): string | null {
    return stickyKey(request)?.key ?? null;
  }
}

/** An explain request's purpose with what it leaves out read as "nothing says". */
function explainedPurpose(purpose: Partial<RequestPurpose>): RequestPurpose {
  const given = Object.fromEntries(Object.entries(purpose).filter(([, value]) => value !== undefined));
  return { requestClass: null, agentType: null, auxiliaryType: null, compaction: null, contextCompacted: null, thinking: false, tools: [], ...given };
}

function pausedError(): PatchbayError {
  return new PatchbayError('Patchbay is paused and is not routing requests. Resume it from the tray menu or the dashboard\'s Routing page (or PUT /api/routing {"paused": false}).', {
    status: 503,
    type: 'server_error',
    code: 'routing_paused',
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export type { Endpoint };
