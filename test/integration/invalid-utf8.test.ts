import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicEmulator } from '../emulators/anthropic-emulator.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

const KEYS = { OPENAI_API_KEY: 'sk-test-utf8-openai', ANTHROPIC_API_KEY: 'sk-ant-test-utf8' };

/**
 * A body with bytes that are not UTF-8 used to be decoded with U+FFFD in their place and the altered
 * text forwarded upstream. Now it is a 400 naming the byte offset, in the ingress protocol's shape,
 * and nothing reaches the provider.
 */
describe('a JSON body that is not valid UTF-8', () => {
  const openai = new OpenAiEmulator({ apiKey: KEYS.OPENAI_API_KEY });
  const anthropic = new AnthropicEmulator({ apiKey: KEYS.ANTHROPIC_API_KEY });
  let pb: TestPatchbay;

  beforeAll(async () => {
    pb = await startPatchbay({
      config: { providers: { openai: { baseUrl: `${await openai.start()}/v1` }, anthropic: { baseUrl: `${await anthropic.start()}/v1` } } },
      env: KEYS,
    });
  });
  afterAll(async () => {
    await pb?.stop();
    await Promise.all([openai.close(), anthropic.close()]);
  });

  /** The JSON text with one raw byte sequence spliced in where `@@` stands. */
  const bodyWith = (json: string, bytes: number[]) => {
    const [before, after] = json.split('@@');
    return { body: Buffer.concat([Buffer.from(before, 'utf8'), Buffer.from(bytes), Buffer.from(after, 'utf8')]), offset: Buffer.byteLength(before, 'utf8') };
  };
  const post = async (path: string, body: Buffer, headers: Record<string, string> = {}) => {
    const response = await fetch(`${pb.patchbay.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pb.key}`, 'content-type': 'application/json', ...headers },
      body,
      signal: AbortSignal.timeout(120_000),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  it('on /v1/chat/completions: 400 invalid_utf8 in OpenAI shape, naming the byte offset; nothing sent upstream', async () => {
    const before = openai.requests.length;
    const { body, offset } = bodyWith('{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"caf@@ au lait"}]}', [0xe9]);
    const answer = await post('/v1/chat/completions', body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_utf8' });
    expect(answer.body.error.message).toContain(`byte offset ${offset}`);
    expect(answer.body.error.message).toMatch(/0xE9/);
    expect(openai.requests.length).toBe(before);
  });

  it('on /v1/messages: 400 in Anthropic shape; a surrogate encoded in UTF-8 and an overlong form are refused too', async () => {
    const before = anthropic.requests.length;
    for (const bytes of [[0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]]) {
      const { body, offset } = bodyWith('{"model":"claude-sonnet-4-5","max_tokens":20,"messages":[{"role":"user","content":"x@@y"}]}', bytes);
      const answer = await post('/v1/messages', body, { 'anthropic-version': '2023-06-01' });
      expect(answer.status, JSON.stringify(bytes)).toBe(400);
      expect(answer.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      expect(answer.body.error.message).toContain(`byte offset ${offset}`);
    }
    expect(anthropic.requests.length).toBe(before);
  });

  it('valid multi-byte text (accents, CJK, emoji, U+FFFD itself) still goes through unchanged', async () => {
    const content = 'café 模型 🚀 \uFFFD';
    const response = await fetch(`${pb.patchbay.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pb.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content }] }),
    });
    expect(response.status).toBe(200);
    const last = openai.requests.at(-1)!.body as { messages: { content: string }[] };
    expect(last.messages[0].content).toBe(content);
  });

  it('on /api the same 400 (the dashboard API reads bodies the same way)', async () => {
    const { body, offset } = bodyWith('{"name":"k@@"}', [0xff]);
    const answer = await post('/api/keys', body, { authorization: `Bearer ${pb.patchbay.adminToken}` });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toContain(`byte offset ${offset}`);
  });
});
