import { describe, expect, it } from 'vitest';
import { SlidingLog } from '../../core/keys/sliding-log.ts';

describe('SlidingLog', () => {
  it('keeps an exact running total as entries arrive, settle and expire', () => {
    const log = new SlidingLog();
    const a = log.push(0, 100);
    log.push(10, 50);
    expect([log.size, log.total, log.oldest()]).toEqual([2, 150, 0]);
    log.adjust(a, 30);
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
    log.adjust(sequences[4000], 10);
    expect(log.total).toBe(2009);
    log.expire(4999);
    expect([log.size, log.total, log.oldest()]).toEqual([0, 0, undefined]);
  });
});
