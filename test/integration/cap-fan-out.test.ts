import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

const UPSTREAM_KEY = 'sk-test-fan-out-upstream';

/**
 * A capped key against requests that fan out: each is refused before anything goes upstream when
 * all it may generate (every choice, every prompt, every best_of candidate) would pass the cap.
 */
describe('monthly caps count every generation a request can produce', () => {
  const emulator = new OpenAiEmulator({ apiKey: UPSTREAM_KEY });
  let pb: TestPatchbay;
  const clientFor = (key: string) => new OpenAI({ baseURL: `${pb.patchbay.url}/v1`, apiKey: key, maxRetries: 0 });
  const capped = async (settings: { monthly_token_cap?: number; monthly_usd_cap?: number }) => clientFor((await pb.patchbay.management.createKey({ name: `capped-${Math.random()}`, ...settings })).secret);
  const upstreamCalls = () => emulator.requests.length;
  const refusal = async (promise: Promise<unknown>) => {
    const before = upstreamCalls();
    const error = await promise.catch((e: unknown) => e);
    expect(upstreamCalls(), 'nothing was sent upstream').toBe(before);
    return error as { status: number; code: string; message: string };
  };

  beforeAll(async () => {
    const upstream = await emulator.start();
    pb = await startPatchbay({ config: { providers: { openai: { baseUrl: `${upstream}/v1` } } }, env: { OPENAI_API_KEY: UPSTREAM_KEY } });
  });
  afterAll(async () => {
    await pb?.stop();
    await emulator.close();
  });

  it('chat: n = 64 × max_tokens 1000 against a 2,000-token cap is refused (it could spend 64,000)', async () => {
    const client = await capped({ monthly_token_cap: 2_000 });
    const error = await refusal(client.chat.completions.create({ model: 'openai/gpt-4o-mini', n: 64, max_tokens: 1_000, messages: [{ role: 'user', content: 'hi' }] }));
    expect(error).toMatchObject({ status: 429, code: 'insufficient_quota' });
    expect(error.message).toMatch(/this request needs up to 6\d,\d{3}|this request needs up to 6\d{4}/);
    // Within the cap, counted the same way, it goes through.
    const ok = await client.chat.completions.create({ model: 'openai/gpt-4o-mini', n: 3, max_tokens: 500, messages: [{ role: 'user', content: 'hi' }] });
    expect(ok.choices).toHaveLength(3);
  });

  it('chat: the USD cap counts n too ($0.05 cap; 64 × 1,000 gpt-4o tokens could cost $0.64)', async () => {
    const client = await capped({ monthly_usd_cap: 0.05 });
    const error = await refusal(client.chat.completions.create({ model: 'openai/gpt-4o', n: 64, max_tokens: 1_000, messages: [{ role: 'user', content: 'hi' }] }));
    expect(error).toMatchObject({ status: 429, code: 'insufficient_quota' });
    expect(error.message).toMatch(/may cost up to \$0\.6/);
  });

  it('completions: 64 prompts × max_tokens 1000, and prompts × best_of, are refused against the caps', async () => {
    const tokens = await capped({ monthly_token_cap: 2_000 });
    const prompts = Array.from({ length: 64 }, (_, i) => `prompt ${i}`);
    expect(await refusal(tokens.completions.create({ model: 'openai/gpt-3.5-turbo-instruct', prompt: prompts, max_tokens: 1_000 }))).toMatchObject({ status: 429, code: 'insufficient_quota' });
    expect(await refusal(tokens.completions.create({ model: 'openai/gpt-3.5-turbo-instruct', prompt: ['a', 'b'], best_of: 10, n: 1, max_tokens: 200 }))).toMatchObject({ status: 429, code: 'insufficient_quota' });
    const usd = await capped({ monthly_usd_cap: 0.05 });
    expect(await refusal(usd.completions.create({ model: 'openai/gpt-3.5-turbo-instruct', prompt: prompts, max_tokens: 1_000 }))).toMatchObject({ status: 429, code: 'insufficient_quota' });
    // One prompt, n = 1: within the cap.
    await expect(tokens.completions.create({ model: 'openai/gpt-3.5-turbo-instruct', prompt: 'a', max_tokens: 200 })).resolves.toBeTruthy();
  });

  it('embeddings: token-id inputs count as their ids, and nothing is assumed for an output embeddings do not have', async () => {
    const client = await capped({ monthly_token_cap: 1_000 });
    const ids = (count: number) => Array.from({ length: count }, (_, i) => 100 + (i % 500));
    expect(await refusal(client.embeddings.create({ model: 'text-embedding-3-small', input: [ids(600), ids(600)] }))).toMatchObject({ status: 429, code: 'insufficient_quota' });
    await expect(client.embeddings.create({ model: 'text-embedding-3-small', input: [ids(450), ids(450)] })).resolves.toBeTruthy();
  });

  it('/v1/messages and /v1/responses: max_tokens and max_output_tokens are reserved', async () => {
    const { secret } = await pb.patchbay.management.createKey({ name: 'capped-agents', monthly_token_cap: 1_000 });
    const before = upstreamCalls();
    const messages = await fetch(`${pb.patchbay.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': secret, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', max_tokens: 5_000, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(messages.status).toBe(429);
    expect(await messages.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    const responses = await fetch(`${pb.patchbay.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', max_output_tokens: 5_000, input: 'hi' }),
    });
    expect(responses.status).toBe(429);
    expect(((await responses.json()) as { error: { code: string } }).error.code).toBe('insufficient_quota');
    expect(upstreamCalls()).toBe(before);
  });
});
