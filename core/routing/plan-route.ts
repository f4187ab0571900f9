import type { Endpoint } from '../catalog/load-catalog.ts';
import type { Strategy } from '../config/config-schema.ts';
import { ContextLengthError } from '../errors/patchbay-error.ts';
import { AllProvidersFailedError } from '../errors/provider-error.ts';
import { findIneligibility, type EligibilityView } from './find-ineligibility.ts';
import { rankEndpoints } from './rank-endpoints.ts';
import { checkPricedModels } from './check-priced-models.ts';
import { checkAllowedModels, type RouteShape } from './resolve-route-groups.ts';
import { ASSUMED_COMPLETION_TOKENS, type Operation, type PlannedCandidate, type RoutePlan, type RouteRequest, type Skip } from './route-plan.ts';
import { stickTo, stickyKey } from './stick-route.ts';
import type { StickyEntry } from './sticky-memory.ts';

const PROMPT_PARAM: Record<Operation, string> = { chat: 'messages', completions: 'prompt', embeddings: 'input' };

/** Everything a plan reads besides the request: a snapshot's worth of state, read through functions. */
export interface PlanView extends EligibilityView {
  defaultStrategy: Strategy;
  weights: { latency: number; cost: number; availability: number };
  /** The round-robin turn a group is at (reading it takes nothing). */
  turn(label: string): number;
  /** The live sticky entry for a key, if any. */
  sticky(key: string): StickyEntry | null;
  now: number;
}

export interface PlanOptions {
  promptTokens: number;
  /**
   * Prompt tokens the request is known to need at least, when it might not fit a context window
   * (an exact or lower-bound count); endpoints with less room are left out. Null: it fits them all.
   */
  contextTokens: { proven: number; exact: boolean } | null;
  /** Keep every reason (explain): score parts, every endpoint left out; refuse nothing. */
  explain?: boolean;
}

/**
 * A request's route: resolve (the shape, worked out before), filter eligible, rank by strategy,
 * stick. Pure and synchronous: it reads the view and writes nothing; the round-robin turns it
 * takes and the sticky key it used come back in the plan for the router to commit. Explaining is
 * the same function asked to keep its reasons.
 */
export function planRoute(request: RouteRequest, shape: RouteShape, view: PlanView, options: PlanOptions): RoutePlan {
  const explain = options.explain === true;
  const strategy = request.strategy ?? shape.strategy ?? view.defaultStrategy;
  const skipped: Skip[] = explain ? [...shape.incapable] : [];
  const notAllowed = checkAllowedModels(request, shape, explain ? skipped : undefined);
  const unpriced = checkPricedModels(request, shape, explain ? skipped : undefined);
  const refused = unpriced && notAllowed ? new Set([...notAllowed, ...unpriced]) : (notAllowed ?? unpriced);
  const output = request.maxTokens ?? 0;
  const completionTokens = request.maxTokens ?? ASSUMED_COMPLETION_TOKENS;
  const seen = new Set<string>();
  const groups: { label: string; order: PlannedCandidate[] }[] = [];
  let tooSmall = 0;
  let fits = 0;
  for (let g = 0; g < shape.groups.length; g++) {
    const group = shape.groups[g];
    const eligible: Endpoint[] = [];
    for (let e = 0; e < group.endpoints.length; e++) {
      const endpoint = group.endpoints[e];
      if (seen.has(endpoint.id)) continue;
      seen.add(endpoint.id);
      if (refused?.has(endpoint.id)) continue;
      const room = options.contextTokens ? options.contextTokens.proven + outputFor(endpoint, output) : 0;
      if (options.contextTokens && endpoint.contextWindow > 0 && room > endpoint.contextWindow) {
        tooSmall++;
        if (explain) skipped.push({ endpoint, code: 'context_too_small', reason: `${endpoint.id} holds ${endpoint.contextWindow} tokens; the request needs ${room}` });
        continue;
      }
      fits++;
      const why = findIneligibility(endpoint, view);
      if (why) skipped.push({ endpoint, ...why });
      else eligible.push(endpoint);
    }
    const ranked = rankEndpoints(eligible, {
      strategy,
      stream: request.stream,
      promptTokens: options.promptTokens,
      completionTokens,
      weights: view.weights,
      health: view.health,
      turn: view.turn(group.label),
      explain,
    });
    // Plain loops, no map/filter/find closures: planning runs on every request.
    const order: PlannedCandidate[] = new Array(ranked.length);
    for (let i = 0; i < ranked.length; i++) {
      const entry = ranked[i];
      order[i] = entry.parts === undefined ? { endpoint: entry.endpoint, score: entry.score, group: group.label } : { ...entry, group: group.label };
    }
    groups.push({ label: group.label, order });
  }
  let first: (typeof groups)[number] | undefined;
  for (let g = 0; g < groups.length; g++) {
    if (groups[g].order.length > 0) {
      first = groups[g];
      break;
    }
  }
  if (!first) {
    if (tooSmall > 0 && fits === 0 && !explain) throw contextExceeded(request, shape, options.contextTokens!);
    if (!explain) throw new AllProvidersFailedError(`No provider can serve "${request.model}" right now: ${[...new Set(skipped.map((s) => s.reason))].join('; ')}.`, [], 503, 'no_eligible_provider');
  }
  const key = request.sticky === false || shape.pinned || (shape.groups[0]?.endpoints.length ?? 0) < 2 ? null : stickyKey(request);
  const sticky = key ? stickTo(first?.order ?? [], key, view.sticky(key.key), view.now, skipped) : null;
  const turns: string[] = [];
  const candidates: PlannedCandidate[] = [];
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g];
    if (strategy === 'round-robin' && group.order.length > 1 && !(sticky?.kept && group === first)) turns.push(group.label);
    for (let i = 0; i < group.order.length; i++) candidates.push(group.order[i]);
  }
  let reason = shape.reason;
  if (sticky?.kept) reason += `; ${sticky.reason}`;
  else if (candidates.length > 0) reason += `; ${sticky && sticky.endpoint ? `${sticky.reason}, ` : ''}${strategy} chose ${candidates[0].endpoint.id}`;
  // The route's explanation travels with the request (header, usage row): what was left out and why.
  if (skipped.length > 0 && !explain) reason += `; skipped ${skipped.map((s) => `${s.endpoint.id} (${s.code})`).join(', ')}`;
  return {
    strategy,
    candidates: endpointsOf(candidates),
    reason,
    promptTokens: options.promptTokens,
    turns,
    sticky,
    explained: explain ? { candidates, skipped } : undefined,
  };
}

function endpointsOf(candidates: PlannedCandidate[]): Endpoint[] {
  const endpoints: Endpoint[] = new Array(candidates.length);
  for (let i = 0; i < candidates.length; i++) endpoints[i] = candidates[i].endpoint;
  return endpoints;
}

/** The output a request asks of an endpoint: up to the endpoint's own limit, since a larger max_tokens is lowered to it (limit-max-tokens.ts). */
export function outputFor(endpoint: Endpoint, output: number): number {
  return endpoint.maxOutput > 0 ? Math.min(output, endpoint.maxOutput) : output;
}

function contextExceeded(request: RouteRequest, shape: RouteShape, tokens: { proven: number; exact: boolean }): ContextLengthError {
  const all = shape.groups.flatMap((g) => g.endpoints);
  const largest = Math.max(...all.map((e) => e.contextWindow));
  const wanted = outputFor(all.find((e) => e.contextWindow === largest)!, request.maxTokens ?? 0);
  return new ContextLengthError(
    `The prompt is ${tokens.exact ? 'about' : 'at least'} ${tokens.proven} tokens${wanted ? ` and max_tokens asks for ${wanted} more` : ''}, which exceeds the largest context window of "${request.model}" (${largest} tokens). Shorten the prompt, lower max_tokens, or choose a model with a larger context_window.`,
    PROMPT_PARAM[request.operation],
    { promptTokens: tokens.proven, outputTokens: wanted, contextWindow: largest },
  );
}
