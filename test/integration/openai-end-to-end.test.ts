import OpenAI from 'openai';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { OpenAiEmulator, chatPromptTokens, countTokens, embeddingFor } from '../emulators/openai-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';

const UPSTREAM_KEY = 'sk-test-emulator-upstream-key';

describe('Patchbay with the OpenAI provider, driven by the official openai client', () => {
  const emulator = new OpenAiEmulator({ apiKey: UPSTREAM_KEY });
  let pb: TestPatchbay;

  beforeAll(async () => {
    const upstream = await emulator.start();
    pb = await startPatchbay({ config: { providers: { openai: { baseUrl: `${upstream}/v1` } } }, env: { OPENAI_API_KEY: UPSTREAM_KEY } });
  });
  afterAll(async () => {
    await pb?.stop();
    await emulator.close();
  });
  beforeEach(() => emulator.clearFaults());

  it('creates a first key at first start, at least 128 bits, stored only as a hash', () => {
    expect(pb.key).toMatch(/^pb-[A-Za-z0-9_-]{32}$/);
    const stored = JSON.stringify(pb.patchbay.db.prepare('SELECT * FROM api_keys').all());
    expect(stored).not.toContain(pb.key);
    expect(stored).not.toContain(pb.key.slice(10));
  });

  it('answers a chat completion with the upstream content, usage and Patchbay headers', async () => {
    const before = emulator.count('/chat/completions');
    const { data, response } = await pb.client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hello there' }] })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.choices[0].message).toMatchObject({ role: 'assistant', content: 'You said: hello there' });
    expect(data.choices[0].finish_reason).toBe('stop');
    const prompt = chatPromptTokens([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hello there' }]);
    expect(data.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: 4, total_tokens: prompt + 4 });
    expect(response.headers.get('x-patchbay-provider')).toBe('openai');
    expect(response.headers.get('x-patchbay-request-id')).toMatch(/^req_/);
    expect(Number(response.headers.get('x-patchbay-latency-ms'))).toBeGreaterThan(0);
    // The upstream got its own key and the provider's model id, never the Patchbay key.
    const sent = emulator.requests.slice(before).find((r) => r.path.endsWith('/chat/completions'))!;
    expect(sent.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect((sent.body as { model: string }).model).toBe('gpt-4o');
  });

  it('streams chunks as they arrive, with a final usage chunk only when asked', async () => {
    const stream = await pb.client.chat.completions.create({
      model: 'openai/gpt-4o',
      messages: [{ role: 'user', content: 'one two three four' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('You said: one two three four');
    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ completion_tokens: 6, total_tokens: chatPromptTokens([{ role: 'user', content: 'one two three four' }]) + 6 });
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('stop');

    const plain = await pb.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const plainChunks = [];
    for await (const chunk of plain) plainChunks.push(chunk);
    expect(plainChunks.every((c) => !('usage' in c))).toBe(true);
    expect(plainChunks.every((c) => c.choices.length === 1)).toBe(true);
    // Patchbay still asked the upstream for usage, and recorded it (the row is written as the stream ends).
    await vi.waitFor(() => expect(usageRows(pb.patchbay).at(-1)).toMatchObject({ stream: 1, completion_tokens: 3, status: 200, provider: 'openai', model: 'gpt-4o' }), { timeout: 60_000, interval: 10 });
  });

  it('forwards each streamed chunk before the upstream has finished (no buffering)', async () => {
    let release!: () => void;
    const until = new Promise<void>((resolve) => (release = resolve));
    emulator.inject({ path: '/chat/completions', hold: { afterEvents: 2, until } });
    const stream = await pb.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a b c' }], stream: true });
    const iterator = stream[Symbol.asyncIterator]();
    const first = await iterator.next();
    const second = await iterator.next();
    // The upstream is still holding the rest of the stream: these arrived while it waits.
    expect(first.value.choices[0].delta.role).toBe('assistant');
    expect(second.value.choices[0].delta.content).toBe('You');
    release();
    let rest = '';
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) rest += next.value.choices[0]?.delta.content ?? '';
    expect(rest).toBe(' said: a b c');
  });

  it('keeps the upstream connection alive across streams: a finished stream does not cost the next one a new connection', async () => {
    // One request first, so a connection is open and idle in the pool.
    await pb.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'warm' }] });
    const before = emulator.connections;
    for (let i = 0; i < 5; i++) {
      const stream = await pb.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: `stream ${i}` }], stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe(`You said: stream ${i}`);
      await pb.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: `after ${i}` }] });
    }
    expect(emulator.connections - before).toBe(0);
  });

  it('serves legacy completions with a prompt array, one choice per prompt', async () => {
    const completion = await pb.client.completions.create({ model: 'openai/gpt-3.5-turbo-instruct', prompt: ['Once upon', 'In a galaxy'], max_tokens: 5 });
    expect(completion.object).toBe('text_completion');
    expect(completion.choices.map((c) => c.index)).toEqual([0, 1]);
    expect(completion.choices.every((c) => c.finish_reason === 'length' && countTokens(c.text) === 5)).toBe(true);
    expect(completion.usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 10, total_tokens: 15 });
  });

  it('returns embeddings as floats and as base64 that decodes to the same numbers', async () => {
    const input = ['first text', 'second text'];
    const floats = await pb.client.embeddings.create({ model: 'text-embedding-3-small', input, encoding_format: 'float' });
    expect(floats.data.map((d) => d.index)).toEqual([0, 1]);
    expect(floats.data[0].embedding).toHaveLength(1536);
    expect(floats.data[1].embedding.slice(0, 4)).toEqual(embeddingFor('second text', 1536).slice(0, 4));
    expect(floats.usage).toEqual({ prompt_tokens: 4, total_tokens: 4 });
    // Without encoding_format the SDK asks for base64 on the wire and decodes it itself.
    const before = emulator.count('/embeddings');
    const decoded = await pb.client.embeddings.create({ model: 'text-embedding-3-small', input });
    expect((emulator.requests.filter((r) => r.path.includes('/embeddings'))[before].body as { encoding_format: string }).encoding_format).toBe('base64');
    expect(decoded.data[1].embedding).toEqual(floats.data[1].embedding);
    const shortened = await pb.client.embeddings.create({ model: 'text-embedding-3-small', input: 'x', dimensions: 256, encoding_format: 'float' });
    expect(shortened.data[0].embedding).toHaveLength(256);
  });

  it('lists models with context_window and capabilities, including aliases', async () => {
    const page = await pb.client.models.list();
    const models = page.data as unknown as { id: string; owned_by: string; context_window: number; capabilities: Record<string, boolean> }[];
    const gpt4o = models.find((m) => m.id === 'openai/gpt-4o')!;
    expect(gpt4o).toMatchObject({ owned_by: 'openai', context_window: 128000, capabilities: { chat: true, completions: true, embeddings: false } });
    expect(models.find((m) => m.id === 'openai/text-embedding-3-small')!.capabilities).toMatchObject({ chat: false, embeddings: true });
    expect(models.filter((m) => m.owned_by === 'patchbay').map((m) => m.id)).toEqual(expect.arrayContaining(['gpt-4o', 'llama-3.3-70b', 'text-embedding-3-small']));
    expect(models.every((m) => Number.isInteger(m.context_window) && typeof m.capabilities.chat === 'boolean')).toBe(true);
  });

  it.each([
    [{ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], temperature: 2.5 }, 'temperature'],
    [{ model: 'gpt-4o', messages: [] }, 'messages'],
    [{ model: 'gpt-4o', messages: [{ role: 'wizard', content: 'x' }] }, 'messages[0].role'],
    [{ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], n: 0 }, 'n'],
    [{ messages: [{ role: 'user', content: 'x' }] }, 'model'],
    [{ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
  ])('rejects a bad chat body with a 400 naming the field (%j)', async (body, param) => {
    const error = await pb.client.chat.completions.create(body as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(param);
    expect((error as Error).message).toContain(param);
  });

  it('rejects bad completions and embeddings bodies with a 400 naming the field', async () => {
    const logprobs = await pb.client.completions.create({ model: 'openai/gpt-3.5-turbo-instruct', prompt: 'x', logprobs: 6 }).catch((e: unknown) => e);
    expect(logprobs).toMatchObject({ status: 400, param: 'logprobs' });
    const format = await pb.client.embeddings.create({ model: 'text-embedding-3-small', input: 'x', encoding_format: 'hex' as never }).catch((e: unknown) => e);
    expect(format).toMatchObject({ status: 400, param: 'encoding_format' });
    const wrongEndpoint = await pb.client.embeddings.create({ model: 'gpt-4o', input: 'x' }).catch((e: unknown) => e);
    expect(wrongEndpoint).toMatchObject({ status: 400, param: 'model' });
  });

  it('answers malformed JSON with a 400, not a 500', async () => {
    const response = await fetch(`${pb.patchbay.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pb.key}`, 'content-type': 'application/json' },
      body: '{"model": "gpt-4o", "messages": [',
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' });
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  });

  it('refuses a body over 32 MB with a 413 in the error shape', async () => {
    const huge = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(33 * 1024 * 1024) }] });
    const response = await fetch(`${pb.patchbay.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pb.key}`, 'content-type': 'application/json' },
      body: huge,
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('request_too_large');
  });

  it('answers an unknown model with 404 model_not_found', async () => {
    const error = await pb.client.chat.completions.create({ model: 'gpt-9000', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error).toMatchObject({ code: 'model_not_found', param: 'model' });
    const pinned = await pb.client.chat.completions.create({ model: 'openai/gpt-9000', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(pinned).toMatchObject({ status: 404, code: 'model_not_found' });
  });

  it('answers a missing, unknown or revoked key with 401 invalid_api_key', async () => {
    const missing = await fetch(`${pb.patchbay.url}/v1/models`);
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');

    const wrong = new OpenAI({ baseURL: `${pb.patchbay.url}/v1`, apiKey: 'pb-not-a-real-key', maxRetries: 0 });
    await expect(wrong.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });

    const created = pb.patchbay.keys.create({ name: 'temporary' });
    const temporary = new OpenAI({ baseURL: `${pb.patchbay.url}/v1`, apiKey: created.secret, maxRetries: 0 });
    await expect(temporary.models.list()).resolves.toBeTruthy();
    pb.patchbay.keys.revoke(created.record.id);
    const revoked = await temporary.models.list().catch((e: unknown) => e);
    expect(revoked).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect((revoked as Error).message).toContain('revoked');
  });

  it('refuses a request addressed to a foreign Host (DNS rebinding) or from a foreign web origin', async () => {
    const send = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(`${pb.patchbay.url}/v1/models`, { headers: { authorization: `Bearer ${pb.key}`, ...headers } }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const rebinding = await send({ host: 'attacker.example:8790' });
    expect(rebinding.status).toBe(403);
    expect(JSON.parse(rebinding.body).error.code).toBe('invalid_host');
    const crossSite = await send({ origin: 'https://attacker.example' });
    expect(crossSite.status).toBe(403);
    expect(JSON.parse(crossSite.body).error.code).toBe('invalid_origin');
    expect((await send({ host: `localhost:${pb.patchbay.port}`, origin: 'http://localhost:5173' })).status).toBe(200);
  });

  it('reports an upstream failure with the provider named and every attempt listed', async () => {
    emulator.inject({ path: '/chat/completions', status: 500 });
    const error = await pb.client.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502 });
    const body = (error as { error: { attempts: { provider: string; status: number }[] } }).error;
    expect(body.attempts).toEqual([expect.objectContaining({ provider: 'openai', model: 'gpt-4o', status: 500, error_type: 'server_error' })]);

    emulator.inject({ path: '/chat/completions', status: 400, message: 'Unsupported value: messages' });
    const rejected = await pb.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(rejected).toMatchObject({ status: 400 });
    expect((rejected as Error).message).toContain('openai: Unsupported value: messages');
  });

  it('ends a stream that breaks mid-way with an error event, never silently', async () => {
    emulator.inject({ path: '/chat/completions', midStream: { afterEvents: 3, kind: 'drop' } });
    const stream = await pb.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a b c d e f' }], stream: true });
    let text = '';
    const failure = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    })().catch((e: unknown) => e);
    expect(text).toBe('You said:');
    expect(failure).toBeInstanceOf(Error);
    expect(String((failure as Error).message)).toMatch(/openai/);
    const row = usageRows(pb.patchbay).at(-1)!;
    expect(row).toMatchObject({ status: 502, stream: 1 });
  });

  it('records a client that leaves before the answer as 499', async () => {
    emulator.inject({ path: '/chat/completions', delayMs: 5000 });
    const sent = emulator.count('/chat/completions');
    const rows = usageRows(pb.patchbay).length;
    const controller = new AbortController();
    const pending = pb.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'never mind' }] }, { signal: controller.signal }).catch((e: unknown) => e);
    // The client leaves once the upstream has the request (it would answer 5 s later).
    await vi.waitFor(() => expect(emulator.count('/chat/completions')).toBe(sent + 1), { timeout: 60_000, interval: 10 });
    controller.abort();
    expect(await pending).toBeInstanceOf(Error);
    await vi.waitFor(() => expect(usageRows(pb.patchbay).length).toBe(rows + 1), { timeout: 60_000, interval: 10 });
    expect(usageRows(pb.patchbay).at(-1)).toMatchObject({ status: 499, error_type: 'client_closed' });
  });

  it('records one usage row per request, success or failure, and never the content', async () => {
    const before = usageRows(pb.patchbay).length;
    await pb.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'secret-content-marker' }] });
    await pb.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], temperature: 9 }).catch(() => undefined);
    await pb.client.embeddings.create({ model: 'text-embedding-3-small', input: 'secret-content-marker' });
    const rows = usageRows(pb.patchbay).slice(before);
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({ endpoint: 'chat', requested_model: 'gpt-4o-mini', provider: 'openai', model: 'gpt-4o-mini', status: 200, strategy: 'balanced' });
    expect(rows[0].cost_usd).toBeCloseTo(((rows[0].prompt_tokens as number) * 0.15 + (rows[0].completion_tokens as number) * 0.6) / 1e6, 12);
    expect(rows[1]).toMatchObject({ endpoint: 'chat', status: 400, error_type: 'invalid_request_error' });
    expect(rows[2]).toMatchObject({ endpoint: 'embeddings', status: 200, prompt_tokens: 1 });
    expect(JSON.stringify(usageRows(pb.patchbay))).not.toContain('secret-content-marker');
  });
});
