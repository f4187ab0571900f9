import type { Capability, Endpoint } from '../catalog/load-catalog.ts';
import type { Strategy } from '../config/config-schema.ts';
import type { PatchbayConfig } from '../config/load-config.ts';
import type { EndpointHealth } from './health-tracker.ts';
import { availability, expectedCost, measuredLatency, rankEndpoints, type ScorePart } from './rank-endpoints.ts';
import { ASSUMED_COMPLETION_TOKENS, type RouteRequest } from './router.ts';

/** Why an endpoint was left out of a route (explain, the dashboard). */
export type SkipCode = 'no_key' | 'disabled' | 'breaker_open' | 'rate_limited' | 'context_too_small' | 'capability_missing' | 'not_allowed_for_key' | 'secret_withheld';

export interface ExplainRequest {
  model: string;
  strategy?: Strategy;
  stream?: boolean;
  needs?: Capability[];
  promptTokens?: number;
  maxTokens?: number;
  /** A key's model restriction, to explain what that key would get. */
  allowedModels?: string[] | null;
}

export interface RouteExplanation {
  model: string;
  strategy: Strategy;
  reason: string;
  candidates: {
    rank: number;
    endpoint: string;
    provider: string;
    model: string;
    /** The model name this candidate comes from: the requested one or a fallback. */
    group: string;
    score: number;
    /** Null under round-robin, which ranks by turn. */
    parts: { latency: ScorePart; cost: ScorePart; availability: ScorePart } | null;
    expected_cost_usd: number;
    latency_p50_ms: number | null;
    success_rate: number;
  }[];
  skipped: { endpoint: string; provider: string; model: string; code: SkipCode; reason: string }[];
}

/** A request's candidate groups by name: the model's own endpoints, then each fallback model's. */
export interface NamedGroups {
  groups: { label: string; endpoints: Endpoint[] }[];
  strategy: Strategy | undefined;
  reason: string;
  /** `auto` chose its tiers for this prompt. */
  auto: boolean;
}

export interface Ineligibility {
  code: SkipCode;
  reason: string;
}

/** What explaining needs of the router: the same resolution and eligibility that routing uses. */
export interface RouterView {
  config: PatchbayConfig;
  health: (id: string) => EndpointHealth;
  /** The round-robin turn a group is at, without taking one. */
  turn: (label: string) => number;
  namedGroups: (request: RouteRequest) => NamedGroups;
  ineligibility: (endpoint: Endpoint) => Ineligibility | null;
}

/**
 * What `plan` would do with a request, and why: every candidate in order with its score's parts,
 * and every endpoint left out with the reason. Reads the same state as routing and changes none
 * of it (no round-robin turn is taken).
 */
export function explainRoute(router: RouterView, input: ExplainRequest): RouteExplanation {
  const request: RouteRequest = {
    operation: 'chat',
    model: input.model,
    needs: (input.needs ?? []).map((capability) => ({ capability, param: capability })),
    strategy: input.strategy,
    fallbackModels: [],
    stream: input.stream ?? false,
    prompt: { bytes: (input.promptTokens ?? 0) * 4, pieces: [], ids: 0 },
    maxTokens: input.maxTokens,
    allowedModels: input.allowedModels ?? null,
  };
  const named = router.namedGroups(request);
  const strategy = input.strategy ?? named.strategy ?? router.config.strategy;
  const promptTokens = input.promptTokens ?? 0;
  const completionTokens = input.maxTokens ?? ASSUMED_COMPLETION_TOKENS;
  const candidates: RouteExplanation['candidates'] = [];
  const skipped: RouteExplanation['skipped'] = [];
  const seen = new Set<string>();
  const skip = (endpoint: Endpoint, code: SkipCode, reason: string) => skipped.push({ endpoint: endpoint.id, provider: endpoint.provider, model: endpoint.model, code, reason });
  let reason = named.reason;
  for (const group of named.groups) {
    const allowed = !request.allowedModels || (named.auto && group.label === 'auto') || request.allowedModels.includes(group.label);
    const eligible: Endpoint[] = [];
    for (const endpoint of group.endpoints) {
      if (seen.has(endpoint.id)) continue;
      seen.add(endpoint.id);
      if (!allowed && !request.allowedModels!.includes(endpoint.id)) {
        skip(endpoint, 'not_allowed_for_key', `the key may not use "${group.label}" (limited to ${request.allowedModels!.join(', ')})`);
        continue;
      }
      const missing = ['chat', ...request.needs.map((n) => n.capability)].filter((c) => !endpoint.capabilities.has(c as Capability));
      if (missing.length > 0) {
        skip(endpoint, 'capability_missing', `${endpoint.id} cannot do ${missing.join(', ')}`);
        continue;
      }
      if (endpoint.contextWindow > 0 && promptTokens + (input.maxTokens ?? 0) > endpoint.contextWindow) {
        skip(endpoint, 'context_too_small', `${endpoint.id} holds ${endpoint.contextWindow} tokens; the request needs ${promptTokens + (input.maxTokens ?? 0)}`);
        continue;
      }
      const why = router.ineligibility(endpoint);
      if (why) skip(endpoint, why.code, why.reason);
      else eligible.push(endpoint);
    }
    const order = rankEndpoints(eligible, {
      strategy,
      stream: request.stream,
      promptTokens,
      completionTokens,
      weights: router.config.weights,
      health: router.health,
      turn: router.turn(group.label),
      explain: true,
    });
    if (candidates.length === 0 && order.length > 0) reason += `; ${strategy} chose ${order[0].endpoint.id}`;
    for (const entry of order) {
      const health = router.health(entry.endpoint.id);
      candidates.push({
        rank: candidates.length + 1,
        endpoint: entry.endpoint.id,
        provider: entry.endpoint.provider,
        model: entry.endpoint.model,
        group: group.label,
        score: entry.score,
        parts: entry.parts ? { latency: entry.parts.latency, cost: entry.parts.cost, availability: entry.parts.availability } : null,
        expected_cost_usd: expectedCost(entry.endpoint, promptTokens, completionTokens),
        latency_p50_ms: measuredLatency(health, request.stream),
        success_rate: availability(health),
      });
    }
  }
  return { model: input.model, strategy, reason, candidates, skipped };
}
