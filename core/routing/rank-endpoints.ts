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
}

export interface RankedEndpoint {
  endpoint: Endpoint;
  /** Higher is better; what the strategy compared. */
  score: number;
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
  if (endpoints.length <= 1) return endpoints.map((endpoint) => ({ endpoint, score: 1 }));
  const healths = endpoints.map((e) => ctx.health(e.id));
  const latencies = healths.map((h) => measuredLatency(h, ctx.stream));
  const costs = endpoints.map((e) => expectedCost(e, ctx.promptTokens, ctx.completionTokens));
  const known = latencies.filter((l): l is number => l !== null);
  const fastest = known.length ? Math.max(Math.min(...known), 0.001) : 1;
  const cheapest = Math.min(...costs);

  const latencyScore = (i: number) => (latencies[i] === null ? 1 : fastest / Math.max(latencies[i]!, 0.001));
  const costScore = (i: number) => (costs[i] === 0 ? 1 : cheapest / costs[i]);
  const availabilityScore = (i: number) => availability(healths[i]);

  let scores: number[];
  switch (ctx.strategy) {
    case 'latency':
      // Never-measured endpoints go first (each is tried once), then the fastest.
      scores = endpoints.map((_, i) => (latencies[i] === null ? 2 : latencyScore(i)));
      break;
    case 'cost':
      scores = endpoints.map((_, i) => costScore(i));
      break;
    case 'availability':
      scores = endpoints.map((_, i) => availabilityScore(i));
      break;
    case 'round-robin': {
      const start = ctx.turn % endpoints.length;
      return endpoints.map((_, i) => ({ endpoint: endpoints[(start + i) % endpoints.length], score: i === 0 ? 1 : 0 }));
    }
    case 'balanced': {
      const { latency: wL, cost: wC, availability: wA } = ctx.weights;
      const total = wL + wC + wA || 1;
      scores = endpoints.map((_, i) => (wL * latencyScore(i) + wC * costScore(i) + wA * availabilityScore(i)) / total);
      break;
    }
  }
  return endpoints
    .map((endpoint, i) => ({ endpoint, score: scores[i] }))
    .sort((a, b) => b.score - a.score);
}
