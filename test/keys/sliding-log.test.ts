import { describe, expect, it } from 'vitest';
import { SlidingLog } from '../../core/keys/sliding-log.ts';

describe('SlidingLog', () => {
  it('keeps an exact running total as amounts arrive, settle and expire', () => {
    const log = new SlidingLog();
    const a = log.push(0, 100);
    log.push(10, 50);
    expect([log.size, log.total, log.oldest()]).toEqual([2, 150, 0]);
    log.adjust(a, -70);
    expect(log.total).toBe(80);
    log.expire(0);
    expect([log.size, log.total, log.oldest()]).toEqual([1, 50, 10]);
    log.adjust(a, 999); // already expired: ignored
    expect(log.total).toBe(50);
  });

  it('stays exact across compaction of a long window', () => {
    const log = new SlidingLog();
    const sequences = Array.from({ length: 5000 }, (_, i) => log.push(i, 1));
    log.expire(2999);
    expect([log.size, log.total]).toEqual([2000, 2000]);
    log.adjust(sequences[4000], 9);
    expect(log.total).toBe(2009);
    log.expire(4999);
    expect([log.size, log.total, log.oldest()]).toEqual([0, 0, undefined]);
  });

  it('holds one entry per millisecond however many amounts arrive in it, and settles each exactly', () => {
    const log = new SlidingLog();
    // 100,000 requests over 10 ms: a busy key's minute no longer costs memory per request.
    const sequences: number[] = [];
    for (let i = 0; i < 100_000; i++) sequences.push(log.push(Math.floor(i / 10_000), 3));
    expect([log.size, log.total]).toEqual([10, 300_000]);
    // Two requests of the same millisecond settle at different amounts; each changes only its own share.
    log.adjust(sequences[0], -2);
    log.adjust(sequences[1], +5);
    expect(log.total).toBe(300_003);
    log.expire(0);
    expect([log.size, log.total, log.oldest()]).toEqual([9, 270_000, 1]);
  });

  it('matches a plain list of every amount through bursts that grow, wrap and shrink its storage', () => {
    const log = new SlidingLog();
    const model: { at: number; amount: number; sequence: number }[] = [];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    let now = 0;
    for (let step = 0; step < 20_000; step++) {
      now += random() < 0.5 ? 0 : 1;
      // Bursts: long runs of pushes (the window grows past several capacities), then long quiet runs.
      const burst = Math.floor(step / 2500) % 2 === 0;
      const action = random();
      if (action < (burst ? 0.8 : 0.2)) {
        const amount = Math.floor(random() * 100);
        const sequence = log.push(now, amount);
        model.push({ at: now, amount, sequence });
      } else if (action < 0.9 && model.length > 0) {
        const entry = model[Math.floor(random() * model.length)];
        const amount = Math.floor(random() * 100);
        log.adjust(entry.sequence, amount - entry.amount);
        entry.amount = amount;
      } else {
        const cutoff = now - Math.floor(random() * 400);
        log.expire(cutoff);
        while (model.length && model[0].at <= cutoff) model.shift();
      }
      if (step % 97 === 0) {
        const distinctTimes = new Set(model.map((e) => e.at)).size;
        expect([log.size, log.total, log.oldest()]).toEqual([distinctTimes, model.reduce((sum, e) => sum + e.amount, 0), model[0]?.at]);
      }
    }
  });
});

describe('KeyLimiter month rollover', () => {
  it('starts a new month with no reservations from requests still in flight', async () => {
    const { KeyLimiter } = await import('../../core/keys/key-limiter.ts');
    let now = Date.UTC(2026, 0, 31, 23, 59, 59);
    const limiter = new KeyLimiter(() => ({ tokens: 0, usd: 0 }), () => now);
    const key = { id: 'key_1', name: 'k', hint: 'pb-', createdAt: 0, revokedAt: null, expiresAt: null, allowedModels: null, monthlyTokenCap: 1000, monthlyUsdCap: null, rpmLimit: null, tpmLimit: null };
    const inFlight = limiter.admit(key, { tokens: 600, costUsd: 0 }) as import('../../core/keys/admission.ts').Admission;
    now = Date.UTC(2026, 1, 1, 0, 0, 1);
    expect(() => limiter.admit(key, { tokens: 900, costUsd: 0 })).not.toThrow();
    inFlight.settle({ tokens: 600, costUsd: 0 });
    // The February request's own reservation still counts.
    expect(() => limiter.admit(key, { tokens: 150, costUsd: 0 })).toThrow(/monthly token cap/);
  });
});
