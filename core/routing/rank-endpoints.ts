import type { Endpoint } from '../catalog/load-catalog.ts';
import type { Strategy } from '../config/config-schema.ts';
import type { EndpointHealth } from './health-tracker.ts';

export interface RankContext {
  strategy: Strategy;
  stream: boolean;
  promptTokens: number;
  completionTokens: number;
  weights: { latency: number; cost: number; availability: number };
  health: (id: string) => EndpointHealth;
  /** The round-robin turn for this model: how many requests it has routed so far. */
  turn: number;
  /** Also report each score's parts (the explain panel); off on the request path. */
  explain?: boolean;
}

/** One part of a balanced score: its value from 0 to 1 and its weight. */
export interface ScorePart {
  value: number;
  weight: number;
}

export interface RankedEndpoint {
  endpoint: Endpoint;
  /** Higher is better; what the strategy compared. */
  score: number;
  /** With `explain`: the parts every strategy but round-robin draws on, and what the request would cost here. */
  parts?: { latency: ScorePart; cost: ScorePart; availability: ScorePart; expectedCostUsd: number; latencyMs: number | null; successRate: number };
}

/** Expected USD cost of this request on this endpoint at list prices. */
export function expectedCost(endpoint: Endpoint, promptTokens: number, completionTokens: number): number {
  return (promptTokens * endpoint.inputPrice + completionTokens * endpoint.outputPrice) / 1_000_000;
}

/** The latency a strategy compares: time to first byte for streams, full answer otherwise; null when never measured. */
export function measuredLatency(health: EndpointHealth, stream: boolean): number | null {
  return stream ? (health.firstByteP50 ?? health.latencyP50) : (health.latencyP50 ?? health.firstByteP50);
}

/** Success rate a strategy compares; an endpoint never tried counts as fully available, so it gets tried rather than starved. */
export function availability(health: EndpointHealth): number {
  return health.samples === 0 ? 1 : health.successRate;
}

/**
 * Orders endpoints by the strategy, best first. Pure: reads health through the context only.
 * Ties keep catalog order (the sort is stable). `latency` tries a never-measured endpoint first.
 *
 * balanced score = (wL * L + wC * C + wA * A) / (wL + wC + wA), where
 *   L = fastest measured latency among the candidates / this endpoint's latency (1 if never measured),
 *   C = cheapest expected cost among the candidates / this endpoint's expected cost (1 if free),
 *   A = availability: (successes + 1) / (attempts + 2) over the window (1 if never tried).
 */
export function rankEndpoints(endpoints: Endpoint[], ctx: RankContext): RankedEndpoint[] {
  const n = endpoints.length;
  if (n === 0 || (n === 1 && !ctx.explain)) return n === 0 ? [] : [{ endpoint: endpoints[0], score: 1 }];
  if (ctx.strategy === 'round-robin') {
    const start = ctx.turn % n;
    const order: RankedEndpoint[] = new Array(n);
    for (let i = 0; i < n; i++) order[i] = { endpoint: endpoints[(start + i) % n], score: i === 0 ? 1 : 0 };
    return order;
  }
  // Plain loops over small arrays: ranking runs on every request, so it allocates only what it returns.
  const healths: EndpointHealth[] = new Array(n);
  const latencies: (number | null)[] = new Array(n);
  const costs: number[] = new Array(n);
  let fastest = Number.POSITIVE_INFINITY;
  let cheapest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    healths[i] = ctx.health(endpoints[i].id);
    const latency = measuredLatency(healths[i], ctx.stream);
    latencies[i] = latency;
    if (latency !== null && latency < fastest) fastest = latency;
    costs[i] = expectedCost(endpoints[i], ctx.promptTokens, ctx.completionTokens);
    if (costs[i] < cheapest) cheapest = costs[i];
  }
  fastest = fastest === Number.POSITIVE_INFINITY ? 1 : Math.max(fastest, 0.001);

  // No closures over the loop's arrays: each would allocate a context on every request.
  const wL = ctx.weights.latency;
  const wC = ctx.weights.cost;
  const wA = ctx.weights.availability;
  const weightTotal = wL + wC + wA || 1;

  const ranked: RankedEndpoint[] = new Array(n);
  for (let i = 0; i < n; i++) {
    let score: number;
    switch (ctx.strategy) {
      case 'latency':
        // Never-measured endpoints go first (each is tried once), then the fastest.
        score = latencies[i] === null ? 2 : latencyScore(latencies[i], fastest);
        break;
      case 'cost':
        score = costScore(costs[i], cheapest);
        break;
      case 'availability':
        score = availability(healths[i]);
        break;
      case 'balanced':
        score = (wL * latencyScore(latencies[i], fastest) + wC * costScore(costs[i], cheapest) + wA * availability(healths[i])) / weightTotal;
        break;
    }
    // Best first, stable (insertion sort: ties keep catalog order; the groups are a handful of endpoints).
    let j = i - 1;
    while (j >= 0 && ranked[j].score < score) {
      ranked[j + 1] = ranked[j];
      j--;
    }
    ranked[j + 1] = ctx.explain
      ? { endpoint: endpoints[i], score, parts: partsOf(ctx, weightTotal, latencies[i], fastest, costs[i], cheapest, healths[i]) }
      : { endpoint: endpoints[i], score };
  }
  return ranked;
}

/** L: the fastest measured latency over this endpoint's (1 if never measured). */
function latencyScore(latency: number | null, fastest: number): number {
  return latency === null ? 1 : fastest / Math.max(latency, 0.001);
}

/** C: the cheapest expected cost over this endpoint's (1 if free). */
function costScore(cost: number, cheapest: number): number {
  return cost === 0 ? 1 : cheapest / cost;
}

/** The explain panel's parts of one endpoint's score; each part weighs in only under the strategies that use it. */
function partsOf(
  ctx: RankContext,
  weightTotal: number,
  latency: number | null,
  fastest: number,
  cost: number,
  cheapest: number,
  health: EndpointHealth,
): NonNullable<RankedEndpoint['parts']> {
  const weightOf = (part: 'latency' | 'cost' | 'availability') => (ctx.strategy === 'balanced' ? ctx.weights[part] / weightTotal : ctx.strategy === part ? 1 : 0);
  return {
    latency: { value: latencyScore(latency, fastest), weight: weightOf('latency') },
    cost: { value: costScore(cost, cheapest), weight: weightOf('cost') },
    availability: { value: availability(health), weight: weightOf('availability') },
    expectedCostUsd: cost,
    latencyMs: latency,
    successRate: availability(health),
  };
}
