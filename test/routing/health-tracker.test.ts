import { describe, expect, it } from 'vitest';
import { HealthTracker, type Outcome } from '../../core/routing/health-tracker.ts';

const settings = { failureThreshold: 1000, cooldownMs: 30_000, windowSize: 20, windowMs: 10_000 };

/** What the window should say, computed the plain way: filter, count, sort. */
function expected(outcomes: Outcome[], now: number) {
  const recent = outcomes.slice(-settings.windowSize).filter((o) => now - o.at <= settings.windowMs);
  const median = (values: number[]) => {
    if (values.length === 0) return null;
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  const successes = recent.filter((o) => o.ok).length;
  return {
    samples: recent.length,
    successes,
    successRate: (successes + 1) / (recent.length + 2),
    latencyP50: median(recent.filter((o) => o.ok && !o.stream).map((o) => o.latencyMs)),
    firstByteP50: median(recent.filter((o) => o.ok && o.stream).map((o) => o.latencyMs)),
  };
}

describe('HealthTracker window', () => {
  it('reports the same counts, success rate and medians as recomputing the window from scratch, as outcomes arrive and age out', () => {
    let now = 1_000_000;
    const health = new HealthTracker(settings, () => now);
    const outcomes: Outcome[] = [];
    // A deterministic mix: successes and failures, JSON and streams, repeated latencies, gaps that age outcomes out.
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let i = 0; i < 400; i++) {
      now += random() < 0.1 ? 4000 : Math.floor(random() * 300);
      const outcome = { at: now, ok: random() < 0.8, latencyMs: Math.floor(random() * 20) * 5, stream: random() < 0.3 };
      health.record('groq/llama', outcome);
      outcomes.push(outcome);
      if (i % 3 === 0) now += Math.floor(random() * 2000);
      expect(health.health('groq/llama')).toMatchObject(expected(outcomes, now));
    }
    // Long quiet: everything ages out.
    now += settings.windowMs + 1;
    expect(health.health('groq/llama')).toMatchObject({ samples: 0, successes: 0, latencyP50: null, firstByteP50: null });
  });

  it('starts an endpoint it has never seen at a neutral success rate with no latency', () => {
    const health = new HealthTracker(settings);
    expect(health.health('together/llama')).toMatchObject({ samples: 0, successRate: 0.5, latencyP50: null, breaker: 'closed' });
  });
});
