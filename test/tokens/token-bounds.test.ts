import bpeRanks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { MAX_TOKEN_BYTES, minTokensForBytes } from '../../core/tokens/token-bounds.ts';
import { maxTokens, measureTextsOrIds, minTokens } from '../../core/routing/estimate-tokens.ts';

describe('token bounds from bytes', () => {
  it("MAX_TOKEN_BYTES is the longest token in o200k's vocabulary as gpt-tokenizer ships it", () => {
    let longest = 0;
    for (const entry of bpeRanks) {
      if (entry == null) continue;
      longest = Math.max(longest, typeof entry === 'string' ? Buffer.byteLength(entry) : entry.length);
    }
    expect(longest).toBe(MAX_TOKEN_BYTES);
  });

  it('every count lies between ceil(bytes / 128) and bytes, including special-token text and long runs', () => {
    const samples = ['hello world', ' '.repeat(5000), '\n'.repeat(3000), 'a'.repeat(4000), '東京は日本の首都です。'.repeat(50), 'say <|endoftext|> now', 'x'];
    for (const text of samples) {
      const bytes = Buffer.byteLength(text);
      const tokens = countTokens(text, { disallowedSpecial: new Set() });
      expect(tokens).toBeGreaterThanOrEqual(minTokensForBytes(bytes));
      expect(tokens).toBeLessThanOrEqual(bytes);
    }
  });

  it('token ids count as ids, exactly, in every input form', () => {
    const ids = Array.from({ length: 60_000 }, (_, i) => i);
    expect(minTokens(measureTextsOrIds(ids))).toBe(60_000);
    expect(maxTokens(measureTextsOrIds(ids))).toBe(60_000);
    const nested = measureTextsOrIds([ids.slice(0, 100), ids.slice(0, 50)]);
    expect([minTokens(nested), maxTokens(nested)]).toEqual([150, 150]);
    const text = measureTextsOrIds('a'.repeat(1280));
    expect([minTokens(text), maxTokens(text)]).toEqual([11, 1281]);
  });
});
