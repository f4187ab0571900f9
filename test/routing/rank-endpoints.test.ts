import { describe, expect, it } from 'vitest';
import type { Endpoint } from '../../core/catalog/load-catalog.ts';
import type { EndpointHealth } from '../../core/routing/health-tracker.ts';
import { rankEndpoints, type RankContext } from '../../core/routing/rank-endpoints.ts';

const endpoint = (id: string, inputPrice: number, outputPrice: number): Endpoint => ({
  id,
  provider: id.split('/')[0],
  model: id.split('/')[1],
  inputPrice,
  outputPrice,
  contextWindow: 100_000,
  maxOutput: 4096,
  nativeCompletions: false,
  capabilities: new Set(['chat']),
});
const health = (samples: number, successes: number, latencyP50: number | null, firstByteP50: number | null = null): EndpointHealth => ({
  samples,
  successes,
  successRate: (successes + 1) / (samples + 2),
  latencyP50,
  firstByteP50,
  breaker: 'closed',
  rateLimitedUntil: null,
});

const cheapSlow = endpoint('a/cheap-slow', 0.1, 0.1);
const dearFast = endpoint('b/dear-fast', 1, 1);
const fresh = endpoint('c/fresh', 0.5, 0.5);

function rank(strategy: RankContext['strategy'], healths: Record<string, EndpointHealth>, extra: Partial<RankContext> = {}, endpoints = [cheapSlow, dearFast]) {
  return rankEndpoints(endpoints, {
    strategy,
    stream: false,
    promptTokens: 1000,
    completionTokens: 256,
    weights: { latency: 0.4, cost: 0.3, availability: 0.3 },
    health: (id) => healths[id] ?? health(0, 0, null),
    turn: 0,
    ...extra,
  }).map((r) => r.endpoint.id);
}

describe('rankEndpoints', () => {
  const measured = { 'a/cheap-slow': health(20, 20, 400), 'b/dear-fast': health(20, 20, 100) };

  it.each([
    ['cost', measured, ['a/cheap-slow', 'b/dear-fast']],
    ['latency', measured, ['b/dear-fast', 'a/cheap-slow']],
    ['availability', { 'a/cheap-slow': health(20, 10, 400), 'b/dear-fast': health(20, 19, 100) }, ['b/dear-fast', 'a/cheap-slow']],
    ['availability', { 'a/cheap-slow': health(20, 19, 400), 'b/dear-fast': health(20, 10, 100) }, ['a/cheap-slow', 'b/dear-fast']],
  ] as const)('%s orders by its measure', (strategy, healths, expected) => {
    expect(rank(strategy, healths)).toEqual(expected);
  });

  it('latency compares time to first byte for streams', () => {
    const healths = { 'a/cheap-slow': health(20, 20, 50, 900), 'b/dear-fast': health(20, 20, 500, 100) };
    expect(rank('latency', healths, { stream: true })).toEqual(['b/dear-fast', 'a/cheap-slow']);
    expect(rank('latency', healths, { stream: false })).toEqual(['a/cheap-slow', 'b/dear-fast']);
  });

  it('tries a never-measured endpoint first under latency and availability, instead of starving it', () => {
    expect(rank('latency', measured, {}, [cheapSlow, dearFast, fresh])[0]).toBe('c/fresh');
    expect(rank('availability', { 'a/cheap-slow': health(50, 49, 10), 'b/dear-fast': health(50, 50, 10) }, {}, [cheapSlow, dearFast, fresh])[0]).toBe('c/fresh');
  });

  it('orders many endpoints best first and keeps catalog order among equal scores', () => {
    const priced = [5, 1, 4, 2, 3].map((price, i) => endpoint(`p${i}/m`, price, price));
    expect(rank('cost', {}, {}, priced)).toEqual(['p1/m', 'p3/m', 'p4/m', 'p2/m', 'p0/m']);
    const same = ['a/one', 'b/two', 'c/three', 'd/four'].map((id) => endpoint(id, 1, 1));
    expect(rank('cost', {}, {}, same)).toEqual(['a/one', 'b/two', 'c/three', 'd/four']);
    expect(rank('balanced', {}, {}, same)).toEqual(['a/one', 'b/two', 'c/three', 'd/four']);
  });

  it('round-robin rotates by turn', () => {
    expect([0, 1, 2, 3].map((turn) => rank('round-robin', {}, { turn }, [cheapSlow, dearFast, fresh])[0])).toEqual(['a/cheap-slow', 'b/dear-fast', 'c/fresh', 'a/cheap-slow']);
  });

  it('balanced weighs latency, cost and availability by the configured weights', () => {
    // Latency 4x better for dear-fast, cost 10x better for cheap-slow, equal availability.
    expect(rank('balanced', measured, { weights: { latency: 1, cost: 0, availability: 0 } })[0]).toBe('b/dear-fast');
    expect(rank('balanced', measured, { weights: { latency: 0, cost: 1, availability: 0 } })[0]).toBe('a/cheap-slow');
    // score(cheap) = (0.4*0.25 + 0.3*1 + 0.3*a) ; score(dear) = (0.4*1 + 0.3*0.1 + 0.3*a): dear wins by 0.03.
    expect(rank('balanced', measured)).toEqual(['b/dear-fast', 'a/cheap-slow']);
    expect(rank('balanced', measured, { weights: { latency: 0.3, cost: 0.4, availability: 0.3 } })).toEqual(['a/cheap-slow', 'b/dear-fast']);
  });
});
