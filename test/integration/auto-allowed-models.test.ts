import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicEmulator } from '../emulators/anthropic-emulator.ts';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

const KEYS = { OPENAI_API_KEY: 'sk-auto-openai', GROQ_API_KEY: 'gsk-auto-groq', ANTHROPIC_API_KEY: 'sk-ant-auto' };

describe('auto with a key restricted to some models', () => {
  const openai = new OpenAiEmulator({ apiKey: KEYS.OPENAI_API_KEY });
  const groq = new GroqEmulator({ apiKey: KEYS.GROQ_API_KEY });
  const anthropic = new AnthropicEmulator({ apiKey: KEYS.ANTHROPIC_API_KEY });
  let pb: TestPatchbay;
  const clientFor = (apiKey: string) => new OpenAI({ baseURL: `${pb.patchbay.url}/v1`, apiKey, maxRetries: 0 });
  // Well over 2,000 prompt tokens: auto's strong tier (Claude Sonnet, gpt-4o, llama-3.3-70b ...).
  const longPrompt = 'tell me about routers and switches. '.repeat(400);
  const explain = async (body: Record<string, unknown>) => {
    const response = await fetch(`${pb.patchbay.url}/api/routing/explain`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pb.patchbay.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  beforeAll(async () => {
    const [o, g, a] = await Promise.all([openai.start(), groq.start(), anthropic.start()]);
    pb = await startPatchbay({
      config: { providers: { openai: { baseUrl: `${o}/v1` }, groq: { baseUrl: `${g}/openai/v1` }, anthropic: { baseUrl: `${a}/v1` } } },
      env: KEYS,
    });
  });
  afterAll(async () => {
    await pb?.stop();
    await Promise.all([openai.close(), groq.close(), anthropic.close()]);
  });

  it('serves only the allowed model, for short and long prompts and every strategy, and says so in the route reason', async () => {
    const { key, secret } = await pb.patchbay.management.createKey({ name: 'mini-only-auto', allowed_models: ['gpt-4o-mini'] });
    const client = clientFor(secret);
    const served = new Set<string>();
    const reasons: string[] = [];
    for (const [model, content] of [['auto', 'hi'], ['auto:round-robin', 'hi'], ['auto:cost', 'hi'], ['auto:latency', 'hi'], ['auto', longPrompt], ['auto:cost', longPrompt]]) {
      for (let i = 0; i < 3; i++) {
        const { data, response } = await client.chat.completions.create({ model, messages: [{ role: 'user', content }] }).withResponse();
        served.add(`${response.headers.get('x-patchbay-provider')}/${data.model.replace(/-\d{4}-\d{2}-\d{2}$/, '')}`);
        reasons.push(decodeURIComponent(response.headers.get('x-patchbay-route-reason')!));
      }
    }
    expect([...served]).toEqual(['openai/gpt-4o-mini']);
    for (const reason of reasons) expect(reason).toMatch(/^auto: (fast|strong) tier .*, only the key's allowed models/);

    // The explanation agrees: only the allowed model is a candidate, for the short and the long prompt.
    for (const prompt_tokens of [10, 5_000]) {
      const answer = await explain({ model: 'auto', key_id: key.id, prompt_tokens, strategy: 'round-robin' });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.candidates.map((c: { endpoint: string }) => c.endpoint)).toEqual(['openai/gpt-4o-mini']);
    }
    // Without the key, auto still has its whole tiers.
    expect((await explain({ model: 'auto', prompt_tokens: 5_000 })).body.candidates.length).toBeGreaterThan(1);
  });

  it('a key allowed `auto` itself keeps all of auto', async () => {
    const { secret } = await pb.patchbay.management.createKey({ name: 'auto-allowed', allowed_models: ['auto'] });
    const { response } = await clientFor(secret).chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: longPrompt }] }).withResponse();
    expect(response.headers.get('x-patchbay-provider')).not.toBeNull();
  });

  it('a key none of whose models auto can use: 403 model_not_allowed naming them, in each ingress protocol\'s shape, and from explain', async () => {
    const { key, secret } = await pb.patchbay.management.createKey({ name: 'embeddings-only', allowed_models: ['text-embedding-3-small'] });
    const refused = await clientFor(secret).chat.completions.create({ model: 'auto', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(refused).toMatchObject({ status: 403, code: 'model_not_allowed', param: 'model' });
    expect((refused as Error).message).toMatch(/auto.*text-embedding-3-small/);

    const messages = await fetch(`${pb.patchbay.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': secret, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'auto', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(messages.status).toBe(403);
    expect(await messages.json()).toMatchObject({ type: 'error', error: { type: 'permission_error', message: expect.stringMatching(/text-embedding-3-small/) } });

    const explained = await explain({ model: 'auto', key_id: key.id });
    expect(explained.status).toBe(403);
    expect(explained.body.error).toMatchObject({ code: 'model_not_allowed' });
  });
});
