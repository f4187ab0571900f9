import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroqEmulator } from './groq-emulator.ts';
import { OpenAiEmulator } from './openai-emulator.ts';
import { TogetherEmulator } from './together-emulator.ts';
import { call, parseSse } from './emulator-test-helpers.ts';

const KEY = 'prompt-cache-emulator-key';
const AUTH = { authorization: `Bearer ${KEY}` };
const SYSTEM = { role: 'system', content: Array.from({ length: 1500 }, (_, i) => `word${i}`).join(' ') };
const TURN_1 = [SYSTEM, { role: 'user', content: 'first question' }];
const TURN_2 = [...TURN_1, { role: 'assistant', content: 'You said: first question' }, { role: 'user', content: 'second question' }];

/** Each emulator keeps its own provider's prompt cache: a prefix is read back only where it was seen. */
describe('emulated prompt caches, per provider', () => {
  const groq = new GroqEmulator({ apiKey: KEY });
  const together = new TogetherEmulator({ apiKey: KEY });
  const openai = new OpenAiEmulator({ apiKey: KEY });
  const base = { groq: '', together: '', openai: '' };

  beforeAll(async () => {
    base.groq = `${await groq.start()}/openai/v1`;
    base.together = `${await together.start()}/v1`;
    base.openai = `${await openai.start()}/v1`;
  });
  afterAll(() => Promise.all([groq.close(), together.close(), openai.close()]));

  const chat = (url: string, model: string, messages: unknown[], extra: Record<string, unknown> = {}) => call(`${url}/chat/completions`, { headers: AUTH, body: { model, messages, ...extra } });

  it('reads a repeated prefix from the cache of the provider that saw it, in 128-token steps from 1,024, and nowhere else', async () => {
    const first = await chat(base.groq, 'llama-3.3-70b-versatile', TURN_1);
    expect(first.json.usage.prompt_tokens_details).toBeUndefined();
    const second = await chat(base.groq, 'llama-3.3-70b-versatile', TURN_2);
    const cached = second.json.usage.prompt_tokens_details.cached_tokens as number;
    expect(cached % 128).toBe(0);
    expect(cached).toBeGreaterThanOrEqual(1024);
    expect(cached).toBeLessThanOrEqual(second.json.usage.prompt_tokens);
    // Together never saw this conversation: its first sight is a full-price prompt.
    const elsewhere = await chat(base.together, 'meta-llama/Llama-3.3-70B-Instruct-Turbo', TURN_2);
    expect(elsewhere.json.usage.prompt_tokens_details).toBeUndefined();
    // Another model on the same provider has its own cache.
    expect((await chat(base.groq, 'llama-3.1-8b-instant', TURN_2)).json.usage.prompt_tokens_details).toBeUndefined();
  });

  it('reports cache reads in streamed usage too, and not for a prefix under 1,024 tokens', async () => {
    await chat(base.openai, 'gpt-4o-mini', TURN_1);
    const streamed = await call(`${base.openai}/chat/completions`, { headers: AUTH, body: { model: 'gpt-4o-mini', messages: TURN_2, stream: true, stream_options: { include_usage: true } } });
    const usage = parseSse(streamed.text).map((e) => e.json as { usage?: { prompt_tokens_details?: { cached_tokens: number } } } | undefined).find((d) => d?.usage)!.usage!;
    expect(usage.prompt_tokens_details!.cached_tokens).toBeGreaterThanOrEqual(1024);
    const short = [{ role: 'user', content: 'short' }];
    await chat(base.openai, 'gpt-4o-mini', short);
    expect((await chat(base.openai, 'gpt-4o-mini', [...short, { role: 'assistant', content: 'x' }, { role: 'user', content: 'y' }])).json.usage.prompt_tokens_details).toBeUndefined();
  });
});
