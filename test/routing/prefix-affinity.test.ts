import { describe, expect, it } from 'vitest';
import { hashPrefix, leadingMessages } from '../../core/routing/prefix-affinity.ts';

describe('hashPrefix', () => {
  const long = `${'a'.repeat(100)}🦊 middle ${'z'.repeat(100)}é`;
  it('names no session for a prefix of a few characters', () => {
    expect(hashPrefix([])).toBeNull();
    expect(hashPrefix(['', [{ role: 'user', content: 'hi' }]])).toBeNull();
  });
  it('names a conversation by its prefix: the same for every turn, another for another conversation', () => {
    const turn = (n: number) => ['', leadingMessages([{ role: 'system', content: long }, { role: 'user', content: 'first' }, ...Array.from({ length: n }, () => ({ role: 'assistant', content: 'more' }))])];
    expect(hashPrefix(turn(1))).not.toBeNull();
    expect(hashPrefix(turn(1))).toBe(hashPrefix(turn(5)));
    expect(hashPrefix(['', [{ role: 'system', content: `${long}!` }, { role: 'user', content: 'first' }]])).not.toBe(hashPrefix(turn(1)));
  });
});
