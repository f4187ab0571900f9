import { describe, expect, it } from 'vitest';
import type { KeyOrder } from '../../core/config/config-schema.ts';
import { KeyHealth, type ProviderKey } from '../../core/secrets/key-ring.ts';

const a: ProviderKey = { label: 'default', secret: 'key-a' };
const b: ProviderKey = { label: 'work', secret: 'key-b' };
const c: ProviderKey = { label: 'zeta', secret: 'key-c' };

/** A ring over fixed keys with a clock the test moves. */
function ringOf(keys: ProviderKey[], order: KeyOrder = 'ordered') {
  const clock = { now: 1_000_000 };
  const health = new KeyHealth(() => clock.now);
  const current = { keys };
  return { ring: health.ring('groq', () => current.keys, () => order), health, clock, current };
}
const labels = (keys: ProviderKey[]) => keys.map((k) => k.label);

describe('which keys one attempt tries, in which order', () => {
  it('ordered: every attempt starts with the first key; a resting key is left out until it wakes', () => {
    const { ring, clock } = ringOf([a, b, c]);
    expect(labels(ring.order())).toEqual(['default', 'work', 'zeta']);
    ring.rest(a, { status: 429, message: 'limited', untilMs: clock.now + 5_000 });
    expect(labels(ring.order())).toEqual(['work', 'zeta']);
    clock.now += 5_000;
    expect(labels(ring.order())).toEqual(['default', 'work', 'zeta']);
  });

  it('spread: each attempt starts one key further along, over the keys not resting', () => {
    const { ring, clock } = ringOf([a, b, c], 'spread');
    expect([0, 1, 2, 3].map(() => ring.order()[0].label)).toEqual(['default', 'work', 'zeta', 'default']);
    ring.rest(b, { status: 429, message: 'limited', untilMs: clock.now + 60_000 });
    const firsts = [0, 1, 2, 3].map(() => ring.order()[0].label);
    expect(firsts).not.toContain('work');
    expect(new Set(firsts)).toEqual(new Set(['default', 'zeta']));
  });

  it('a 401 rests until the key is set again: another secret under the label starts afresh', () => {
    const { ring, current, health } = ringOf([a, b]);
    ring.rest(a, { status: 401, message: 'invalid key', untilMs: Number.POSITIVE_INFINITY });
    expect(labels(ring.order())).toEqual(['work']);
    expect(health.view('groq', a)).toMatchObject({ resting_until: 'until the key is set again', last_error: { status: 401 } });
    const replaced = { label: 'default', secret: 'key-a2' };
    current.keys = [replaced, b];
    expect(labels(ring.order())).toEqual(['default', 'work']);
    expect(health.view('groq', replaced)).toEqual({ resting_until: null, rest_reason: null, last_error: null, last_used_at: null, requests_since_start: 0 });
  });

  it('when every key rests, all are tried anyway, the first to wake first; one key is always tried', () => {
    const { ring, clock } = ringOf([a, b]);
    ring.rest(a, { status: 401, message: 'invalid key', untilMs: Number.POSITIVE_INFINITY });
    ring.rest(b, { status: 429, message: 'limited', untilMs: clock.now + 30_000 });
    expect(ring.allRestingUntil()).toBe(clock.now + 30_000);
    expect(labels(ring.order())).toEqual(['work', 'default']);
    const single = ringOf([a]);
    single.ring.rest(a, { status: 401, message: 'invalid key', untilMs: Number.POSITIVE_INFINITY });
    expect(labels(single.ring.order())).toEqual(['default']);
  });

  it('allRestingUntil is null while any key is free', () => {
    const { ring, clock } = ringOf([a, b]);
    ring.rest(a, { status: 429, message: 'limited', untilMs: clock.now + 30_000 });
    expect(ring.allRestingUntil()).toBeNull();
  });
});
