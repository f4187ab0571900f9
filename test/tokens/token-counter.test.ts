import { countTokens } from 'gpt-tokenizer';
import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { afterAll, describe, expect, it } from 'vitest';
import { countTextTokens, LONG_PIECE } from '../../core/tokens/count-text-tokens.ts';
import { TokenCounter } from '../../core/tokens/token-counter.ts';
import { PATIENT_COUNT_BUDGET_MS } from '../helpers/start-patchbay.ts';

const asText = { disallowedSpecial: new Set<string>() };
const prose =
  'Patchbay routes each request to a provider. It counts tokens only when a prompt might not fit, e.g. 12,345 words; "quotes" and émojis 🎉 too.\n  Indented line\r\nWindows line.\n\n';

describe('countTextTokens (the counting thread\'s algorithm)', () => {
  const count = (text: string) => countTokens(text, asText);

  it('equals gpt-tokenizer on ordinary text, whatever the batch boundaries', () => {
    const samples = [prose, prose.repeat(400), 'function f(a,b){return a+b}'.repeat(3000), '東京は日本の首都です。 Tokyo 2024!'.repeat(1500), 'end with spaces   ', 'x', ''];
    for (const text of samples) expect(countTextTokens(text, O200K_TOKEN_SPLIT_REGEX, count, Infinity)).toEqual({ tokens: count(text), exact: true });
  });

  it('counts a long run in slices the tokenizer handles quickly, and says the result is an estimate', () => {
    // The tokenizer is quadratic on a run of one character (~10 s for 100k 'x'): it must only ever
    // see short pieces of it. Its speed is the bench's business; the slicing is checked here.
    let longest = 0;
    const result = countTextTokens('a'.repeat(600 * 1024), O200K_TOKEN_SPLIT_REGEX, (text) => ((longest = Math.max(longest, text.length)), count(text)), Infinity);
    expect(longest).toBeLessThanOrEqual(LONG_PIECE);
    expect(result).toMatchObject({ exact: false });
    // Between the byte bounds.
    expect(result!.tokens).toBeGreaterThanOrEqual(Math.ceil((600 * 1024) / 128));
    expect(result!.tokens).toBeLessThanOrEqual(600 * 1024);
  });

  it('stops at the deadline', () => {
    let clock = 0;
    const result = countTextTokens(prose.repeat(2000), O200K_TOKEN_SPLIT_REGEX, count, 10, () => (clock += 4));
    expect(result).toBeNull();
  });
});

describe('TokenCounter (a worker thread)', () => {
  // A budget no loaded machine runs out of, except where the budget is what is tested (`hasty`).
  const patient = { budgetMs: PATIENT_COUNT_BUDGET_MS };
  const counter = new TokenCounter(patient);
  afterAll(() => counter.close());

  it("answers gpt-tokenizer's exact count for ordinary text", async () => {
    expect(await counter.count(prose)).toEqual({ tokens: countTokens(prose, asText), exact: true });
    expect(await counter.count('say <|endoftext|> now')).toEqual({ tokens: countTokens('say <|endoftext|> now', asText), exact: true });
  });

  it('answers null (decide with the bounds) over the size cap, without starting any work', async () => {
    const small = new TokenCounter({ maxBytes: 1000 });
    expect(await small.count('a '.repeat(600))).toBeNull();
    await small.close();
  });

  it('answers null past the time budget (that other requests are answered meanwhile: event-loop-tokens.test.ts)', async () => {
    const hasty = new TokenCounter({ budgetMs: 1 });
    try {
      // The first count waits for the thread to load the tokenizer; ~250 KB of text then takes far longer than 1 ms.
      await hasty.count('warm');
      // Null: the budget ended the count (finished, it would be a number); the main thread only waited.
      expect(await hasty.count(prose.repeat(1500))).toBeNull();
    } finally {
      await hasty.close();
    }
  });

  it('answers null at once when the queue is full', async () => {
    const narrow = new TokenCounter({ ...patient, maxQueued: 1 });
    try {
      const first = narrow.count(prose);
      expect(await narrow.count(prose)).toBeNull();
      expect(await first).toMatchObject({ exact: true });
    } finally {
      await narrow.close();
    }
  });

  it('starts again after close', async () => {
    const again = new TokenCounter(patient);
    expect(await again.count('one two')).toMatchObject({ exact: true });
    await again.close();
    expect(await again.count('one two three')).toEqual({ tokens: countTokens('one two three'), exact: true });
    await again.close();
  });
});
