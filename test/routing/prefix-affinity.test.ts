import { describe, expect, it } from 'vitest';
import { hashPrefix, leadingMessages, toolNames } from '../../core/routing/prefix-affinity.ts';

/**
 * The fingerprint's definition, written out the plain way (pieces joined by NUL, then both hashes):
 * hashPrefix folds the pieces in as it meets them, and must name every prefix exactly as this does,
 * or sessions Patchbay already keeps on one endpoint would move after an update.
 */
function reference(parts: unknown[]): string | null {
  const pieces: string[] = [];
  const walk = (value: unknown, depth: number): void => {
    if (typeof value === 'string') pieces.push(value.length <= 128 ? value : `${value.length}:${value.slice(0, 64)}${value.slice(-64)}`);
    else if (Array.isArray(value)) {
      pieces.push(`[${value.length}`);
      if (depth < 8) for (const item of value) walk(item, depth + 1);
    } else if (value !== null && typeof value === 'object') {
      pieces.push('{');
      if (depth < 8) {
        for (const key in value) {
          pieces.push(key);
          walk((value as Record<string, unknown>)[key], depth + 1);
        }
      }
    } else pieces.push(String(value));
  };
  walk(parts, 0);
  const text = pieces.join('\u0000');
  if (text.length < 64) return null;
  let fnv = 0x811c9dc5;
  let djb = 5381;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    fnv = Math.imul(fnv ^ c, 0x01000193);
    djb = (Math.imul(djb, 33) ^ c) | 0;
  }
  return (fnv >>> 0).toString(16).padStart(8, '0') + (djb >>> 0).toString(16).padStart(8, '0');
}

describe('hashPrefix', () => {
  const long = `${'a'.repeat(100)}🦊 middle ${'z'.repeat(100)}é`;
  let nested: unknown = { leaf: 'deep' };
  for (let i = 0; i < 12; i++) nested = { level: i, child: [nested] };
  const cases: [string, unknown[]][] = [
    ['nothing', []],
    ['a short prefix (no session named)', ['', [{ role: 'user', content: 'hi' }]]],
    ['a chat prefix', ['', leadingMessages([{ role: 'system', content: 'You are the benchmark. Answer briefly.' }, { role: 'user', content: 'Say the bench sentence about the fox.' }])]],
    ['tools and a long system prompt', [toolNames([{ type: 'function', function: { name: 'read_file' } }, { name: 'bash' }]), [{ role: 'system', content: long }, { role: 'user', content: [{ type: 'text', text: long }] }]]],
    ['a string of exactly 128 and of 129 characters', ['x'.repeat(128), 'y'.repeat(129)]],
    ['numbers, booleans, null', [[1, 2.5, true, false, null, { n: 0 }], 'padding to pass sixty-four characters of fingerprint text here']],
    ['nesting past the depth bound', [nested, 'padding to pass sixty-four characters of fingerprint text here']],
  ];
  for (const [name, parts] of cases) {
    it(`names ${name} as the plain definition does`, () => {
      expect(hashPrefix(parts)).toBe(reference(parts));
    });
  }
  it('names a conversation by its prefix: the same for every turn, another for another conversation', () => {
    const turn = (n: number) => ['', leadingMessages([{ role: 'system', content: long }, { role: 'user', content: 'first' }, ...Array.from({ length: n }, () => ({ role: 'assistant', content: 'more' }))])];
    expect(hashPrefix(turn(1))).not.toBeNull();
    expect(hashPrefix(turn(1))).toBe(hashPrefix(turn(5)));
    expect(hashPrefix(['', [{ role: 'system', content: `${long}!` }, { role: 'user', content: 'first' }]])).not.toBe(hashPrefix(turn(1)));
  });
});
