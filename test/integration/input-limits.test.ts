import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicEmulator } from '../emulators/anthropic-emulator.ts';
import { GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';

const KEYS = { OPENAI_API_KEY: 'sk-test-limits-openai', LOCAL_API_KEY: 'sk-test-limits-local', GEMINI_API_KEY: 'gm-test-limits-gemini', ANTHROPIC_API_KEY: 'sk-ant-test-limits' };

interface Answer {
  status: number;
  headers: Headers;
  body: { error?: { message: string; type: string; param: string | null; code: string | null } } & Record<string, unknown>;
}

/** Bad input must be a 4xx in OpenAI's error shape, never a 500; these tests read the raw answer. */
describe('client input never gives a 500 or a crash; limits on what fans out', () => {
  const openai = new OpenAiEmulator({ apiKey: KEYS.OPENAI_API_KEY });
  const gemini = new GeminiEmulator({ apiKey: KEYS.GEMINI_API_KEY });
  const anthropic = new AnthropicEmulator({ apiKey: KEYS.ANTHROPIC_API_KEY });
  /** A user's own OpenAI-compatible server, serving whatever model ids it likes. */
  const local = new OpenAiEmulator({ apiKey: KEYS.LOCAL_API_KEY, chatModels: ['模型', 'm'.repeat(250)] });
  let pb: TestPatchbay;

  beforeAll(async () => {
    const openaiUrl = `${await openai.start()}/v1`;
    pb = await startPatchbay({
      config: {
        providers: {
          openai: { baseUrl: openaiUrl },
          google: { baseUrl: `${await gemini.start()}/v1beta` },
          anthropic: { baseUrl: `${await anthropic.start()}/v1` },
          local: { baseUrl: `${await local.start()}/v1`, apiKeyEnv: 'LOCAL_API_KEY' },
        },
      },
      env: KEYS,
    });
  });
  afterAll(async () => {
    await pb?.stop();
    await Promise.all([openai.close(), gemini.close(), anthropic.close(), local.close()]);
  });

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const response = await fetch(`${pb.patchbay.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pb.key}`, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Answer['body'] };
  };
  const chat = (extra: Record<string, unknown>, headers?: Record<string, string>) =>
    post('/v1/chat/completions', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...extra }, headers);
  const expectInvalid = (answer: Answer, param: string | null, message: RegExp) => {
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(400);
    expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(answer.body.error!.message).toMatch(message);
  };
  const stillServes = async () => {
    const answer = await chat({});
    expect(answer.status).toBe(200);
  };

  describe('headers built from request text', () => {
    it('a pass-through model id outside Latin-1 is served with a legal, percent-encoded route reason, and the server lives on', async () => {
      const client = new OpenAI({ baseURL: `${pb.patchbay.url}/v1`, apiKey: pb.key, maxRetries: 0, timeout: 120_000 });
      const { data, response } = await client.chat.completions.create({ model: 'local/模型', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
      expect(data.choices[0].message.content).toBeTruthy();
      const reason = response.headers.get('x-patchbay-route-reason')!;
      expect(reason).toContain(`local/${encodeURIComponent('模型')}`);
      expect(decodeURIComponent(reason)).toContain('local/模型');
      await stillServes();
    });

    it.each([
      ['a CR', 'local/model\rX-Evil: 1'],
      ['an LF', 'local/model\nX-Evil: 1'],
      ['a NUL', 'local/mo\u0000del'],
      ['a DEL', 'local/mo\u007fdel'],
    ])('a model id with %s is a 400 naming model, and the server lives on', async (_label, model) => {
      expectInvalid(await chat({ model }), 'model', /control character/);
      await stillServes();
    });

    it('the server survives a failure while finishing a request (a usage store that throws) and keeps answering', async () => {
      const usage = pb.patchbay.usage;
      const record = usage.record;
      usage.record = () => {
        throw new Error('injected: the usage store refuses the row');
      };
      try {
        expect((await chat({})).status).toBe(200);
        expectInvalid(await chat({ temperature: 'hot' }), 'temperature', /must be a number/);
      } finally {
        usage.record = record;
      }
      expect(pb.logs.some((line) => line.includes('injected: the usage store refuses the row'))).toBe(true);
      await stillServes();
    });
  });

  describe('deep JSON', () => {
    const deep = (depth: number, leaf = '1') => '['.repeat(depth) + leaf + ']'.repeat(depth);

    it('a body nested 20,000 deep is a 400 that names the depth limit', async () => {
      const body = `{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"metadata":${deep(20_000)}}`;
      expectInvalid(await post('/v1/chat/completions', body), null, /nested more than 64 levels/);
      await stillServes();
    });

    it('a tool schema nested 20,000 deep is a 400 (a depth limit on the body catches it first)', async () => {
      const parameters = `{"type":"object","properties":{"x":${'{"type":"array","items":'.repeat(20_000)}{}${'}'.repeat(20_000)}}}`;
      const body = `{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${parameters}}}]}`;
      expectInvalid(await post('/v1/chat/completions', body), null, /nested more than 64 levels/);
    });

    it('a tool schema nested 40 levels deep (within the body limit) is a 400 naming its parameters', async () => {
      const parameters = JSON.parse(`{"type":"object","properties":{"x":${'{"type":"array","items":'.repeat(36)}{}${'}'.repeat(36)}}}`);
      const answer = await chat({ tools: [{ type: 'function', function: { name: 'f', parameters } }] });
      expectInvalid(answer, 'tools[0].function.parameters', /at most 32 levels/);
    });

    it('a body at 60 levels is still accepted', async () => {
      const body = `{"model":"openai/gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"metadata":{"a":${deep(58, '"x"')}}}`;
      expect((await post('/v1/chat/completions', body)).status).toBe(200);
    });
  });

  describe('tool schemas sent to Gemini', () => {
    const geminiTool = (parameters: unknown) => ({
      model: 'google/gemini-2.5-flash',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'lookup', parameters } }],
    });

    it.each([
      ['a malformed percent-escape', '#/%'],
      ['a pointer to nothing', '#/$defs/Missing'],
      ['an external URL', 'https://example.com/schema.json'],
    ])('$ref with %s is a 400 naming the field', async (_label, ref) => {
      const answer = await post('/v1/chat/completions', geminiTool({ type: 'object', properties: { a: { $ref: ref } } }));
      expectInvalid(answer, 'tools[0].function.parameters.properties.a.$ref', /\$ref/);
    });

    it('a schema whose $defs reference the next twice, 20 levels deep, is refused before anything is sent (it is never expanded)', async () => {
      const defs: Record<string, unknown> = { L20: { type: 'string' } };
      for (let i = 0; i < 20; i++) defs[`L${i}`] = { type: 'object', properties: { a: { $ref: `#/$defs/L${i + 1}` }, b: { $ref: `#/$defs/L${i + 1}` } } };
      const schema = { type: 'object', properties: { root: { $ref: '#/$defs/L0' } }, $defs: defs };
      expect(JSON.stringify(schema).length).toBeLessThan(3000);
      const sent = gemini.count('generateContent');
      // Expanded, it would be 2^20 copies (the answer would never come, or run out of memory); how fast
      // the refusal is, is measured by `node bench/event-loop-lag.ts`.
      const answer = await post('/v1/chat/completions', geminiTool(schema));
      expectInvalid(answer, 'tools[0].function.parameters', /expands|too large|\$ref/);
      expect(gemini.count('generateContent')).toBe(sent);
    });

    it('$ref chains deeper than 16 are a 400 naming the tool', async () => {
      const defs: Record<string, unknown> = { L20: { type: 'string' } };
      for (let i = 0; i < 20; i++) defs[`L${i}`] = { type: 'object', properties: { next: { $ref: `#/$defs/L${i + 1}` } } };
      const answer = await post('/v1/chat/completions', geminiTool({ type: 'object', properties: { root: { $ref: '#/$defs/L0' } }, $defs: defs }));
      expectInvalid(answer, 'tools[0].function.parameters', /more than 16 levels/);
    });

    it('a schema with a few shared $defs is still inlined and served', async () => {
      const schema = {
        type: 'object',
        properties: { from: { $ref: '#/$defs/Place' }, to: { $ref: '#/$defs/Place' } },
        $defs: { Place: { type: 'object', properties: { city: { type: 'string' } } } },
      };
      const answer = await post('/v1/chat/completions', geminiTool(schema));
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const sentBody = gemini.requests.at(-1)!.body as { tools: { functionDeclarations: { parameters: { properties: Record<string, unknown> } }[] }[] };
      expect(sentBody.tools[0].functionDeclarations[0].parameters.properties.to).toMatchObject({ type: 'OBJECT', properties: { city: { type: 'STRING' } } });
    });
  });

  describe('fan-out limits', () => {
    it('more than 64 prompts on /v1/completions is a 400 naming prompt', async () => {
      const before = anthropic.count('/messages');
      const answer = await post('/v1/completions', { model: 'anthropic/claude-haiku-4-5-20251001', prompt: Array.from({ length: 200 }, (_, i) => `p${i}`), n: 5 });
      expectInvalid(answer, 'prompt', /at most 64/);
      expect(anthropic.count('/messages')).toBe(before);
    });

    it('prompts x n over 64 upstream generations is a 400 naming n', async () => {
      const answer = await post('/v1/completions', { model: 'anthropic/claude-haiku-4-5-20251001', prompt: Array.from({ length: 20 }, (_, i) => `p${i}`), n: 5 });
      expectInvalid(answer, 'n', /64 generations/);
    });

    it('n over 64 on chat is a 400 naming n', async () => {
      expectInvalid(await chat({ model: 'anthropic/claude-haiku-4-5-20251001', n: 100 }), 'n', /at most 64/);
    });

    it('a 300-entry X-Patchbay-Fallback header is a 400 naming the header, and nothing is tried', async () => {
      const before = openai.count('/chat/completions');
      const fallback = Array.from({ length: 300 }, () => 'openai/gpt-4o').join(',');
      const answer = await chat({}, { 'x-patchbay-fallback': fallback });
      expectInvalid(answer, 'X-Patchbay-Fallback', /at most 5/);
      expect(openai.count('/chat/completions')).toBe(before);
    });

    it('5 fallback models are still accepted', async () => {
      expect((await chat({}, { 'x-patchbay-fallback': Array.from({ length: 5 }, () => 'openai/gpt-4o').join(',') })).status).toBe(200);
    });
  });

  describe('model ids', () => {
    it('a 1 MB model id is a 400 naming model, and is neither stored nor echoed', async () => {
      const model = `local/${'m'.repeat(1024 * 1024)}`;
      const answer = await chat({ model });
      expectInvalid(answer, 'model', /at most 256 characters/);
      expect(JSON.stringify(answer.body).length).toBeLessThan(2000);
      const rows = usageRows(pb.patchbay);
      expect(rows.every((row) => String(row.requested_model ?? '').length <= 256)).toBe(true);
    });

    it('a 256-character pass-through model id is served', async () => {
      expect((await chat({ model: `local/${'m'.repeat(250)}` })).status).toBe(200);
    });
  });

  it('a malformed percent-escape in an /api path is a 400, not a 500', async () => {
    const response = await fetch(`${pb.patchbay.url}/api/keys/%E0%A4%A`, { headers: { authorization: `Bearer ${pb.patchbay.adminToken}` } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as Answer['body']).error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_url' });
  });
});
