import type { Capability, Endpoint } from '../catalog/load-catalog.ts';
import type { Strategy } from '../config/config-schema.ts';
import type { PromptSize } from './estimate-tokens.ts';
import type { RequestPurpose } from './match-route-rule.ts';
import type { ScorePart } from './rank-endpoints.ts';

export type Operation = 'chat' | 'completions' | 'embeddings';

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
  /** The key has a USD cap: only endpoints with a known price may serve it (the cap named in a refusal). */
  pricedOnly?: boolean;
  usdCap?: number;
  /** The client's session as it named it (null: none), which sticky routing keeps on one endpoint. */
  session?: string | null;
  /**
   * The Patchbay key the request came with (null: none). A session, and a prompt prefix, belong to
   * the key that sent them: another key naming the same id is another session (stick-route.ts).
   */
  keyId?: string | null;
  /**
   * A hash of the request's stable prefix (tools, system, first messages), which names the session
   * of a request without one. A function: it is worked out only when stickiness could matter.
   */
  affinity?: () => string | null;
  /** False when the client sent X-Patchbay-Sticky: off. */
  sticky?: boolean;
  /** What the request is for (an agent's hints, its body): routing.rules may send it to another model. */
  purpose?: RequestPurpose | null;
}

/** Why an endpoint was left out of a route (explain, the dashboard). */
export type SkipCode = 'no_key' | 'disabled' | 'breaker_open' | 'rate_limited' | 'context_too_small' | 'capability_missing' | 'not_allowed_for_key' | 'secret_withheld' | 'price_unknown';

export interface Ineligibility {
  code: SkipCode;
  reason: string;
}

/** An endpoint left out of a request's route, and why. */
export interface Skip extends Ineligibility {
  endpoint: Endpoint;
}

/** A route that kept to the endpoint that answered the session before, and why. */
export interface StickyChoice {
  /** The sticky memory's key: the session (or prefix) and the model. */
  key: string;
  /** What named the session: its id as the client sent it, or the prefix hash. */
  via: 'session' | 'prefix';
  /** The endpoint the session is on, and whether the plan kept to it. */
  endpoint: string | null;
  kept: boolean;
  reason: string;
}

/** One ranked candidate; `parts` only when the plan was asked to keep its reasons. */
export interface PlannedCandidate {
  endpoint: Endpoint;
  group: string;
  score: number;
  parts?: { latency: ScorePart; cost: ScorePart; availability: ScorePart; expectedCostUsd: number; latencyMs: number | null; successRate: number };
}

export interface RoutePlan {
  strategy: Strategy;
  candidates: Endpoint[];
  reason: string;
  promptTokens: number;
  /** The groups whose round-robin turn this plan takes (the router advances them; explaining does not). */
  turns: string[];
  /** How stickiness shaped the plan, null when it played no part (no session, pinned, off). */
  sticky: StickyChoice | null;
  /** With explain: every candidate with its score, and every endpoint left out with the reason. */
  explained?: { candidates: PlannedCandidate[]; skipped: Skip[] };
}

export interface ExplainRequest {
  model: string;
  strategy?: Strategy;
  stream?: boolean;
  needs?: Capability[];
  promptTokens?: number;
  maxTokens?: number;
  /** A key's model restriction, to explain what that key would get. */
  allowedModels?: string[] | null;
  /** A session id, to explain whether its next request would stay where it is. */
  session?: string;
  /** The key whose session it is (sessions are per key). */
  keyId?: string;
  /** What the request is for, to explain which routing rule would decide (absent: none is tried). */
  purpose?: Partial<RequestPurpose>;
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
  /** Present when a session was named: whether it would stay on its endpoint, and why. */
  sticky?: { endpoint: string | null; kept: boolean; reason: string } | null;
  /** Present when a purpose was given: the routing rule that decided (its place, name and model, and what held), or null for none. */
  rule?: { index: number; name: string | null; model: string; why: string } | null;
}
