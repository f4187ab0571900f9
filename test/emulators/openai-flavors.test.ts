import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GroqEmulator } from './groq-emulator.ts';
import { TogetherEmulator } from './together-emulator.ts';
import { chatPromptTokens, embeddingFor } from './openai-emulator.ts';
import { call, parseSse } from './emulator-test-helpers.ts';

const KEY = 'flavor-emulator-key';
const AUTH = { authorization: `Bearer ${KEY}` };
const ask = (text: string) => [{ role: 'user', content: text }];
const WEATHER = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };

describe('Groq emulator (OpenAI wire, Groq flavour)', () => {
  const emulator = new GroqEmulator({ apiKey: KEY });
  let base = '';
  const chat = (body: Record<string, unknown>) => call(`${base}/openai/v1/chat/completions`, { headers: AUTH, body: { model: 'llama-3.3-70b-versatile', ...body } });

  beforeAll(async () => {
    base = await emulator.start();
  });
  afterAll(() => emulator.close());
  beforeEach(() => emulator.clearFaults());

  it('serves /openai/v1 only, with Groq error bodies (no param) and x-ratelimit headers', async () => {
    const res = await chat({ messages: ask('hello there') });
    expect(res.json).toMatchObject({
      object: 'chat.completion',
      model: 'llama-3.3-70b-versatile',
      choices: [{ index: 0, message: { role: 'assistant', content: 'You said: hello there' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: chatPromptTokens(ask('hello there')), completion_tokens: 4, queue_time: expect.any(Number), total_time: expect.any(Number) },
      x_groq: { id: expect.stringMatching(/^req_/) },
      service_tier: 'on_demand',
    });
    expect(res.headers.get('x-ratelimit-limit-requests')).toBe('14400');
    const wrongBase = await call(`${base}/v1/chat/completions`, { headers: AUTH, body: { model: 'llama-3.3-70b-versatile', messages: ask('x') } });
    expect(wrongBase.status).toBe(404);
    expect(wrongBase.json.error).toMatchObject({ type: 'invalid_request_error', code: 'unknown_url' });
    for (const path of ['/openai/v1/completions', '/openai/v1/embeddings']) expect((await call(`${base}${path}`, { headers: AUTH, body: { model: 'x' } })).status).toBe(404);
    const unauthorized = await call(`${base}/openai/v1/models`, { headers: { authorization: 'Bearer nope' } });
    expect(unauthorized.json).toEqual({ error: { message: 'Invalid API Key', type: 'invalid_request_error', code: 'invalid_api_key' } });
  });

  it.each([
    ['n > 1', { n: 2 }],
    ['logprobs', { logprobs: true }],
    ['logit_bias', { logit_bias: { '50256': -100 } }],
    ['top_logprobs', { top_logprobs: 2 }],
    ['messages[].name', { messages: [{ role: 'user', content: 'x', name: 'bob' }] }],
  ])('rejects %s with 400', async (_name, extra) => {
    const res = await chat({ messages: ask('x'), ...extra });
    expect(res.status).toBe(400);
    expect(res.json.error.type).toBe('invalid_request_error');
    expect(Object.keys(res.json.error)).not.toContain('param');
  });

  it('streams usage under x_groq.usage on the finish chunk, plus the OpenAI usage chunk when asked', async () => {
    const plain = parseSse((await chat({ messages: ask('a b'), stream: true })).text);
    expect(plain.at(-1)!.data).toBe('[DONE]');
    const chunks = plain.slice(0, -1).map((e) => e.json);
    expect(chunks[0]).toMatchObject({ x_groq: { id: expect.stringMatching(/^req_/) }, choices: [{ delta: { role: 'assistant', content: '' } }] });
    const last = chunks.at(-1);
    expect(last.choices[0].finish_reason).toBe('stop');
    expect(last.x_groq.usage).toMatchObject({ prompt_tokens: 8, completion_tokens: 4, total_tokens: 12 });
    expect(last.usage).toEqual(last.x_groq.usage);
    expect(chunks.some((c) => c.choices.length === 0)).toBe(false);
    const withUsage = parseSse((await chat({ messages: ask('a b'), stream: true, stream_options: { include_usage: true } })).text);
    expect(withUsage.at(-2)!.json).toMatchObject({ choices: [], usage: { total_tokens: 12 } });
  });

  it('sends a tool call whole in one delta with a short non-call_ id', async () => {
    const stream = parseSse((await chat({ messages: ask('Weather?'), tools: [WEATHER], stream: true })).text).slice(0, -1).map((e) => e.json);
    const calls = stream.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls).toEqual([{ id: expect.stringMatching(/^[a-z0-9]{9}$/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"city-value"}' }, index: 0 }]);
    expect(stream.at(-1).choices[0].finish_reason).toBe('tool_calls');
  });

  it('lists models with Groq fields and injects 429 with retry-after', async () => {
    const models = await call(`${base}/openai/v1/models`, { headers: AUTH });
    expect(models.json.data.find((m: { id: string }) => m.id === 'llama-3.1-8b-instant')).toMatchObject({ object: 'model', owned_by: 'Meta', active: true, context_window: 131072 });
    emulator.inject({ path: '/chat/completions', status: 429 });
    const limited = await chat({ messages: ask('x') });
    expect(limited.status).toBe(429);
    expect(limited.json.error).toMatchObject({ type: 'tokens', code: 'rate_limit_exceeded' });
    expect(limited.headers.get('retry-after')).toBe('2');
  });
});

describe('Together emulator (OpenAI wire, Together flavour)', () => {
  const emulator = new TogetherEmulator({ apiKey: KEY });
  let base = '';
  const LLAMA = 'meta-llama/Llama-3.3-70B-Instruct-Turbo';
  const chat = (body: Record<string, unknown>) => call(`${base}/v1/chat/completions`, { headers: AUTH, body: { model: LLAMA, ...body } });

  beforeAll(async () => {
    base = await emulator.start();
  });
  afterAll(() => emulator.close());
  beforeEach(() => emulator.clearFaults());

  it('ends Llama answers with eos, other models and stop sequences with stop', async () => {
    const llama = await chat({ messages: ask('hello') });
    expect(llama.json).toMatchObject({ object: 'chat.completion', choices: [{ finish_reason: 'eos', message: { role: 'assistant', content: 'You said: hello', tool_calls: [] } }], usage: { completion_tokens: 3 } });
    expect((await chat({ model: 'openai/gpt-oss-20b', messages: ask('hello') })).json.choices[0].finish_reason).toBe('stop');
    expect((await chat({ messages: ask('a ## b'), stop: ['##'] })).json.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: 'You said: a ' } });
    expect((await chat({ messages: ask('a b c'), max_tokens: 2 })).json.choices[0].finish_reason).toBe('length');
  });

  it('streams usage on the finish chunk only (usage: null before), with no separate usage chunk even when asked', async () => {
    const events = parseSse((await chat({ messages: ask('a b'), stream: true, stream_options: { include_usage: true } })).text);
    expect(events.at(-1)!.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => e.json);
    expect(chunks.every((c) => c.choices.length === 1)).toBe(true);
    expect(chunks.slice(0, -1).every((c) => c.usage === null && c.choices[0].finish_reason === null)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ choices: [{ finish_reason: 'eos', delta: { content: '' } }], usage: { prompt_tokens: 8, completion_tokens: 4, total_tokens: 12 } });
    expect(chunks.map((c) => c.choices[0].delta.content).join('')).toBe('You said: a b');
    expect(chunks[0].choices[0].delta).toMatchObject({ role: 'assistant', token_id: expect.any(Number) });
  });

  it('serves legacy completions for chat models as text.completion / completion.chunk', async () => {
    const res = await call(`${base}/v1/completions`, { headers: AUTH, body: { model: LLAMA, prompt: 'Once upon', max_tokens: 3 } });
    expect(res.json).toMatchObject({ object: 'text.completion', choices: [{ index: 0, text: 'and then the', finish_reason: 'length' }], usage: { prompt_tokens: 2, completion_tokens: 3 } });
    const stream = parseSse((await call(`${base}/v1/completions`, { headers: AUTH, body: { model: LLAMA, prompt: 'x', stream: true } })).text).slice(0, -1).map((e) => e.json);
    expect(stream[0]).toMatchObject({ object: 'completion.chunk', token: { text: expect.any(String), special: false }, usage: null });
    expect(stream.at(-1)).toMatchObject({ choices: [{ finish_reason: 'eos' }], usage: { prompt_tokens: 1 } });
  });

  it('returns float embeddings whatever encoding_format says, without usage, and rejects dimensions', async () => {
    const res = await call(`${base}/v1/embeddings`, { headers: AUTH, body: { model: 'BAAI/bge-base-en-v1.5', input: ['a', 'b'], encoding_format: 'base64' } });
    expect(res.json).toEqual({ object: 'list', data: [{ object: 'embedding', embedding: embeddingFor('a', 768), index: 0 }, { object: 'embedding', embedding: embeddingFor('b', 768), index: 1 }], model: 'BAAI/bge-base-en-v1.5' });
    const dims = await call(`${base}/v1/embeddings`, { headers: AUTH, body: { model: 'BAAI/bge-base-en-v1.5', input: 'a', dimensions: 256 } });
    expect(dims.status).toBe(400);
    expect(dims.json.error.message).toBe('Unrecognized request arguments supplied: dimensions');
  });

  it('lists models as a bare array and sends errors with a top-level id', async () => {
    const models = await call(`${base}/v1/models`, { headers: AUTH });
    expect(Array.isArray(models.json)).toBe(true);
    expect(models.json.find((m: { id: string }) => m.id === 'BAAI/bge-base-en-v1.5')).toMatchObject({ type: 'embedding', object: 'model' });
    const unknown = await chat({ model: 'mistralai/Nope', messages: ask('x') });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ id: expect.any(String), error: { message: expect.stringContaining('mistralai/Nope'), type: 'invalid_request_error', param: null, code: 'model_not_found' } });
    const unauthorized = await call(`${base}/v1/models`, { headers: { authorization: 'Bearer nope' } });
    expect(unauthorized.json.error.code).toBe('invalid_api_key');
    emulator.inject({ status: 503 });
    expect((await chat({ messages: ask('x') })).status).toBe(503);
  });
});
