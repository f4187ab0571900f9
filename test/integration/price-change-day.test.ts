import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GEMINI_MODELS, GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';

// Gemini 3.6 Flash: the pinned price table (genai-prices 0.1.8) prices it 0.75 / 3.75 USD per
// million tokens, and 1.5 / 7.5 from 2027-01-01. The emulator serves it for this file (each test
// file runs in its own process).
GEMINI_MODELS['gemini-3.6-flash'] = { kind: 'chat', displayName: 'Gemini 3.6 Flash', inputTokenLimit: 1048576, outputTokenLimit: 65536 };

describe('a price change the table announces applies from its day, in a Patchbay already running', () => {
  const gemini = new GeminiEmulator({ apiKey: 'gem-price-day' });
  let pb: TestPatchbay;

  beforeAll(async () => {
    const url = await gemini.start();
    pb = await startPatchbay({ config: { providers: { google: { baseUrl: `${url}/v1beta` } } }, env: { GEMINI_API_KEY: 'gem-price-day' } });
  });
  afterEach(() => vi.useRealTimers());
  afterAll(async () => {
    await pb?.stop();
    await gemini.close();
  });

  const ask = async () => {
    const answer = await pb.client.chat.completions.create({ model: 'google/gemini-3.6-flash', messages: [{ role: 'user', content: 'price me' }] });
    const row = usageRows(pb.patchbay).at(-1)!;
    expect([row.prompt_tokens, row.completion_tokens]).toEqual([answer.usage!.prompt_tokens, answer.usage!.completion_tokens]);
    return row as { input_price: number; output_price: number; cost_usd: number; prompt_tokens: number; completion_tokens: number };
  };

  it("bills each answer at its day's prices: today's, then the new ones once the day has come, without a restart", async () => {
    const before = await ask();
    expect([before.input_price, before.output_price]).toEqual([0.75, 3.75]);
    expect(before.cost_usd).toBeCloseTo((before.prompt_tokens * 0.75 + before.completion_tokens * 3.75) / 1e6, 12);

    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2027-01-01T00:00:05Z') });
    const after = await ask();
    expect([after.input_price, after.output_price]).toEqual([1.5, 7.5]);
    expect(after.cost_usd).toBeCloseTo((after.prompt_tokens * 1.5 + after.completion_tokens * 7.5) / 1e6, 12);
    expect(after.cost_usd).toBeGreaterThan(before.cost_usd);
  });

  it('puts the new prices in force for routing and the model list once the day has begun (the minute check)', async () => {
    const listed = async () => {
      const response = await fetch(`${pb.patchbay.url}/v1/models`, { headers: { authorization: `Bearer ${pb.key}` } });
      const body = (await response.json()) as { data: { id: string; pricing?: { input_per_million: number | null; output_per_million: number | null } }[] };
      return body.data.find((m) => m.id === 'google/gemini-3.6-flash')?.pricing;
    };
    expect(pb.patchbay.models.checkPriceDay(new Date())).toBe(false);
    expect(await listed()).toMatchObject({ input_per_million: 0.75, output_per_million: 3.75 });
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2027-01-01T00:00:30Z') });
    expect(pb.patchbay.models.checkPriceDay()).toBe(true);
    expect(await listed()).toMatchObject({ input_per_million: 1.5, output_per_million: 7.5 });
    // The next day brings no change: nothing is put in force again.
    expect(pb.patchbay.models.checkPriceDay(new Date('2027-01-02T00:00:30Z'))).toBe(false);
    expect(pb.logs.join('\n')).toContain('Prices the price table announced for 2027-01-01 are in force.');
  });
});
