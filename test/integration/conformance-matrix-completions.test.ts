import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens, limitText } from '../emulators/openai-emulator.ts';
import { MODES, PROVIDERS, expectBadRequest, newUsageRows, runCompletion, startRig, usageRowCount, type ProviderCase, type Rig } from '../helpers/conformance-matrix.ts';

/**
 * The legacy /v1/completions conformance matrix: each provider x (JSON, stream, stream with
 * include_usage). Native on OpenAI (gpt-3.5-turbo-instruct) and Together (one upstream request per
 * prompt); through chat on Anthropic, Google and Groq (the prompt as the user's message). The
 * emulators' native completion is " and then the story continues after: <prompt>" with prompt
 * tokens = words of the prompt; through chat it is "You said: <prompt>" with the chat formula.
 */

/** 16 words: longer than the default max_tokens of 16 once the reply's own words are added. */
const LONG = 'the quick brown fox jumps over the lazy dog and keeps on running far away home';
const SHORT = 'alpha beta gamma';

/** What the emulated model answers a prompt on this provider, after OpenAI's max_tokens default and the stop sequence. */
function expected(p: ProviderCase, prompt: string, stop?: string): { text: string; finish: 'stop' | 'length'; promptTokens: number } {
  const full = p.nativeCompletions ? ` and then the story continues after: ${prompt}` : `You said: ${prompt}`;
  const limited = limitText(full, 16, stop);
  // Through chat: 3 for priming + the user message's words + 3.
  const promptTokens = p.nativeCompletions ? countTokens(prompt) : countTokens(prompt) + 6;
  return { text: limited.text, finish: limited.finish, promptTokens };
}

const usageOf = (parts: { text: string; promptTokens: number }[]) => {
  const prompt = parts.reduce((sum, e) => sum + e.promptTokens, 0);
  const completion = parts.reduce((sum, e) => sum + countTokens(e.text), 0);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
};

describe('conformance matrix: /v1/completions', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.stop();
  });

  describe.each(PROVIDERS)('$name', (p) => {
    const stream = (mode: string) => (mode === 'json' ? 0 : 1);

    it.each(MODES)('prompt array of 2, default max_tokens 16: %s', async (mode) => {
      expect(countTokens(LONG)).toBe(16);
      const before = usageRowCount(rig.pb);
      const upstream = rig.emulators[p.name];
      const sent = upstream.requests.length;
      const result = await runCompletion(rig.client, { model: p.completion, prompt: [LONG, SHORT] }, mode);
      // Native: OpenAI takes the prompt array in one request, Together one request per prompt; else one chat per prompt.
      const paths = upstream.requests.slice(sent).map((r) => r.path.split('?')[0]);
      expect(paths.map((path) => /\/v1\/completions$/.test(path))).toEqual(paths.map(() => p.nativeCompletions));
      expect(paths).toHaveLength(p.name === 'openai' ? 1 : 2);
      const answers = [expected(p, LONG), expected(p, SHORT)];
      expect(answers.map((a) => a.finish)).toEqual(['length', 'stop']);
      expect(result.choices).toEqual(answers.map((a, index) => ({ index, text: a.text, finish_reason: a.finish })));
      expect(countTokens(result.choices[0].text)).toBe(16);
      const usage = usageOf(answers);
      if (mode === 'stream') expect(result.usage).toBeUndefined();
      else expect(result.usage).toMatchObject(usage);
      const rows = await newUsageRows(rig.pb, before);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ endpoint: 'completions', status: 200, requested_model: p.completion, provider: p.name, model: p.servedCompletion, stream: stream(mode), ...usage });
    });

    it.each(MODES)('stop sequence: %s', async (mode) => {
      const before = usageRowCount(rig.pb);
      const result = await runCompletion(rig.client, { model: p.completion, prompt: SHORT, stop: ' gamma', max_tokens: 50 }, mode);
      const answer = expected(p, SHORT, ' gamma');
      expect(answer.text).toMatch(/alpha beta$/);
      expect(result.choices).toEqual([{ index: 0, text: answer.text, finish_reason: 'stop' }]);
      const usage = usageOf([answer]);
      if (mode !== 'stream') expect(result.usage).toMatchObject(usage);
      const rows = await newUsageRows(rig.pb, before);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ endpoint: 'completions', status: 200, requested_model: p.completion, provider: p.name, model: p.servedCompletion, stream: stream(mode), ...usage });
    });

    it(p.logprobs ? 'logprobs: served' : 'logprobs: refused with a 400 naming logprobs', async () => {
      const before = usageRowCount(rig.pb);
      const request = rig.client.completions.create({ model: p.completion, prompt: SHORT, logprobs: 2 });
      if (p.logprobs) {
        const completion = await request;
        expect(completion.choices).toHaveLength(1);
        if (p.name === 'openai') expect(completion.choices[0].logprobs?.tokens?.join('')).toBe(completion.choices[0].text);
      } else {
        await expectBadRequest(request, 'logprobs');
      }
      const rows = await newUsageRows(rig.pb, before);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ endpoint: 'completions', status: p.logprobs ? 200 : 400 });
    });
  });
});
