import { describe, expect, it } from 'vitest';
import { HealthTracker } from '../../core/routing/health-tracker.ts';

describe('HealthTracker circuit breaker', () => {
  const settings = { failureThreshold: 3, cooldownMs: 1000, windowSize: 10, windowMs: 60_000 };
  const setup = () => {
    let now = 0;
    const tracker = new HealthTracker(settings, () => now);
    return { tracker, advance: (ms: number) => (now += ms), at: () => now };
  };
  const fail = (t: HealthTracker, at: number) => t.record('x/y', { at, ok: false, latencyMs: 5, stream: false });
  const succeed = (t: HealthTracker, at: number) => t.record('x/y', { at, ok: true, latencyMs: 5, stream: false });

  it('opens after the threshold of consecutive failures, not before, and a success resets the count', () => {
    const { tracker, at } = setup();
    fail(tracker, at());
    fail(tracker, at());
    succeed(tracker, at());
    fail(tracker, at());
    fail(tracker, at());
    expect(tracker.isAvailable('x/y')).toBe(true);
    fail(tracker, at());
    expect(tracker.health('x/y').breaker).toBe('open');
    expect(tracker.isAvailable('x/y')).toBe(false);
  });

  it('lets exactly one probe through after the cool-down; the probe decides', () => {
    const { tracker, advance, at } = setup();
    for (let i = 0; i < 3; i++) fail(tracker, at());
    advance(999);
    expect(tracker.isAvailable('x/y', true)).toBe(false);
    advance(1);
    expect(tracker.health('x/y').breaker).toBe('half-open');
    expect(tracker.isAvailable('x/y', true)).toBe(true);
    expect(tracker.isAvailable('x/y', true)).toBe(false);
    fail(tracker, at());
    expect(tracker.health('x/y').breaker).toBe('open');
    advance(1000);
    expect(tracker.isAvailable('x/y', true)).toBe(true);
    succeed(tracker, at());
    expect(tracker.health('x/y').breaker).toBe('closed');
  });

  it('a 429 counts against availability but not the breaker, and its window makes the endpoint unavailable until it ends', () => {
    const { tracker, advance, at } = setup();
    for (let i = 0; i < 5; i++) tracker.record('x/y', { at: at(), ok: false, latencyMs: 1, stream: false }, false);
    expect(tracker.health('x/y').breaker).toBe('closed');
    expect(tracker.health('x/y').successRate).toBeCloseTo(1 / 7);
    tracker.markRateLimited('x/y', at() + 500);
    expect(tracker.isAvailable('x/y')).toBe(false);
    advance(500);
    expect(tracker.isAvailable('x/y')).toBe(true);
  });

  it('forgets outcomes outside the window', () => {
    const { tracker, advance, at } = setup();
    succeed(tracker, at());
    advance(61_000);
    expect(tracker.health('x/y').samples).toBe(0);
  });
});

describe('HealthTracker probe slot', () => {
  it('frees a half-open probe that ended in a 429 (neither success nor counted failure)', () => {
    let now = 0;
    const tracker = new HealthTracker({ failureThreshold: 1, cooldownMs: 100, windowSize: 10, windowMs: 60_000 }, () => now);
    tracker.record('x/y', { at: now, ok: false, latencyMs: 1, stream: false });
    now = 100;
    expect(tracker.isAvailable('x/y', true)).toBe(true);
    expect(tracker.isAvailable('x/y', true)).toBe(false);
    tracker.record('x/y', { at: now, ok: false, latencyMs: 1, stream: false }, false);
    expect(tracker.isAvailable('x/y', true)).toBe(true);
  });
});
