import { describe, expect, it } from 'vitest';
import type { Admission } from '../../core/keys/admission.ts';
import type { KeyCapEvent } from '../../core/keys/key-cap-event.ts';
import { KeyLimiter } from '../../core/keys/key-limiter.ts';
import type { ApiKeyRecord } from '../../core/keys/key-store.ts';

const key = (overrides: Partial<ApiKeyRecord>): ApiKeyRecord =>
  ({ id: 'key_1', name: 'team', hint: 'pb-x', createdAt: 0, revokedAt: null, expiresAt: null, allowedModels: null, monthlyTokenCap: null, monthlyUsdCap: null, rpmLimit: null, tpmLimit: null, ...overrides }) as ApiKeyRecord;

describe('key_cap events from the key limiter (its in-memory month totals, no query per request)', () => {
  it('fires once at 80 % and once at 100 % of a token cap, per month, and not again for usage already past a threshold at start', () => {
    let now = Date.UTC(2026, 10, 20);
    let queries = 0;
    const limiter = new KeyLimiter(() => (queries++, { tokens: 0, usd: 0 }), () => now);
    const events: KeyCapEvent[] = [];
    limiter.onCap = (event) => events.push(event);
    const capped = key({ monthlyTokenCap: 1000 });
    // A request that used more than its estimate (no max_tokens) can pass the cap: 100 % then comes from usage.
    for (const used of [300, 400, 150, 100, 150]) (limiter.admit(capped, { tokens: 10, costUsd: 0 }) as Admission).settle({ tokens: used, costUsd: 0 });
    expect(events.map((e) => `${e.cap} ${e.threshold} ${e.used}`)).toEqual(['tokens 80 850', 'tokens 100 1100']);
    expect(events[0]).toMatchObject({ key_id: 'key_1', key_name: 'team', limit: 1000, month: '2026-11' });
    expect(() => limiter.admit(capped, { tokens: 10, costUsd: 0 })).toThrow(/monthly token cap/);
    expect(events).toHaveLength(2);
    expect(queries).toBe(1);
    // A new month: announced again when crossed again.
    now = Date.UTC(2026, 11, 2);
    (limiter.admit(capped, { tokens: 10, costUsd: 0 }) as Admission).settle({ tokens: 900, costUsd: 0 });
    expect(events.map((e) => `${e.threshold} ${e.month}`)).toEqual(['80 2026-11', '100 2026-11', '80 2026-12']);
    // Restarted with the month's usage already past 80 %: that threshold was announced before.
    const restarted = new KeyLimiter(() => ({ tokens: 900, usd: 0 }), () => now);
    const later: KeyCapEvent[] = [];
    restarted.onCap = (event) => later.push(event);
    (restarted.admit(capped, { tokens: 10, costUsd: 0 }) as Admission).settle({ tokens: 10, costUsd: 0 });
    expect(later).toEqual([]);
  });

  it('fires 100 % when the cap refuses a request (the cap keeps usage from reaching it), and tracks the USD cap apart', () => {
    const limiter = new KeyLimiter(() => ({ tokens: 0, usd: 0 }));
    const events: KeyCapEvent[] = [];
    limiter.onCap = (event) => events.push(event);
    const capped = key({ monthlyTokenCap: 1000, monthlyUsdCap: 1 });
    (limiter.admit(capped, { tokens: 500, costUsd: 0.1 }) as Admission).settle({ tokens: 500, costUsd: 0.85 });
    expect(events.map((e) => `${e.cap} ${e.threshold}`)).toEqual(['usd 80']);
    (limiter.admit(capped, { tokens: 400, costUsd: 0.1 }) as Admission).settle({ tokens: 400, costUsd: 0.01 });
    expect(() => limiter.admit(capped, { tokens: 200, costUsd: 0.01 })).toThrow(/monthly token cap/);
    expect(() => limiter.admit(capped, { tokens: 200, costUsd: 0.01 })).toThrow(/monthly token cap/);
    expect(events.map((e) => `${e.cap} ${e.threshold} ${e.used}`)).toEqual(['usd 80 0.85', 'tokens 80 900', 'tokens 100 900']);
  });
});
