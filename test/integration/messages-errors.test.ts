import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newUsageRows, startRig, usageRowCount, type Rig } from '../helpers/conformance-matrix.ts';
import { InvalidRequestError } from '../../core/errors/patchbay-error.ts';
import { renderError } from '../../core/http/render-error.ts';
import { anthropicCodec } from '../../core/protocols/anthropic-messages/anthropic-codec.ts';

/**
 * /v1/messages errors, fallback and thinking, through the official @anthropic-ai/sdk: every
 * refusal in Anthropic's shape with Anthropic's status/type pair, fallback only before the first
 * byte (never two message_start), a failure after it as `event: error`, and signed thinking.
 */

let rig: Rig;
let anthropic: Anthropic;
const CLAUDE = 'anthropic/claude-haiku-4-5-20251001';

beforeAll(async () => {
  rig = await startRig();
  anthropic = new Anthropic({ baseURL: rig.pb.patchbay.url, apiKey: rig.pb.key, maxRetries: 0 });
});
afterAll(() => rig.stop());
afterEach(() => {
  for (const emulator of Object.values(rig.emulators)) emulator.clearFaults();
});

async function failure(promise: Promise<unknown>): Promise<InstanceType<typeof Anthropic.APIError>> {
  const error = await promise.then(
    () => new Error('expected the request to fail'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Anthropic.APIError);
  return error as InstanceType<typeof Anthropic.APIError>;
}

/** Raw POST, for bodies the SDK's types would not let through. */
async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, any> }> {
  const response = await fetch(`${rig.pb.patchbay.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': rig.pb.key, 'anthropic-version': '2023-06-01', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Record<string, any> };
}

describe('authentication', () => {
  it('accepts the Patchbay key as Authorization: Bearer (authToken) as well as x-api-key', async () => {
    const bearer = new Anthropic({ baseURL: rig.pb.patchbay.url, apiKey: null, authToken: rig.pb.key, maxRetries: 0 });
    const message = await bearer.messages.create({ model: CLAUDE, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'You said: hi' });
  });

  it('a wrong key is a 401 authentication_error in Anthropic’s shape', async () => {
    const wrong = new Anthropic({ baseURL: rig.pb.patchbay.url, apiKey: 'pb-wrong', maxRetries: 0 });
    const error = await failure(wrong.messages.create({ model: CLAUDE, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }));
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'authentication_error', message: expect.stringContaining('patchbay keys create') } });
  });
});

describe('bad requests name the field', () => {
  it('missing max_tokens: 400 invalid_request_error naming max_tokens', async () => {
    const { status, json } = await post('/v1/messages?beta=true', { model: CLAUDE, messages: [{ role: 'user', content: 'hi' }] });
    expect(status).toBe(400);
    expect(json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', param: 'max_tokens' } });
    expect(json.error.message).toContain('max_tokens');
  });

  it('an unknown model is a 404 not_found_error', async () => {
    const error = await failure(anthropic.messages.create({ model: 'no-such-model', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }));
    expect(error.status).toBe(404);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });

  it('what a non-Anthropic upstream cannot honour is a 400 naming it; Anthropic takes it', async () => {
    // top_k: deprecated by Anthropic in 2026 (so no longer in the SDK's types) but still sent by older clients.
    const withTopK = (model: string) => ({ model, max_tokens: 50, top_k: 5, messages: [{ role: 'user' as const, content: 'hi' }] }) as Anthropic.MessageCreateParamsNonStreaming;
    const error = await failure(anthropic.messages.create(withTopK('openai/gpt-4o')));
    expect(error.status).toBe(400);
    expect(error.error).toMatchObject({ error: { type: 'invalid_request_error', param: 'top_k', message: expect.stringContaining('top_k') } });
    const served = await anthropic.messages.create(withTopK(CLAUDE));
    expect(served.stop_reason).toBe('end_turn');
  });
});

describe('Patchbay-side refusals and provider failures', () => {
  it('a key over its rate limit gets 429 rate_limit_error with retry-after', async () => {
    const { secret } = rig.pb.patchbay.keys.create({ name: 'one-a-minute', rpmLimit: 1 });
    const limited = new Anthropic({ baseURL: rig.pb.patchbay.url, apiKey: secret, maxRetries: 0 });
    await limited.messages.create({ model: CLAUDE, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    const error = await failure(limited.messages.create({ model: CLAUDE, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }));
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(Number(error.headers?.get('retry-after'))).toBeGreaterThan(0);
  });

  it('all providers failed: Anthropic’s shape, with every attempt listed', async () => {
    rig.emulators.anthropic.inject({ path: '/v1/messages', status: 500, times: 5 });
    const error = await failure(anthropic.messages.create({ model: CLAUDE, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }));
    expect(error.status).toBe(502);
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'api_error', code: 'all_providers_failed', attempts: [expect.objectContaining({ provider: 'anthropic', status: 500 })] } });
  });

  it('falls back before the first byte: a stream that failed after message_start leaks nothing, one message_start reaches the client', async () => {
    rig.emulators.anthropic.inject({ path: '/v1/messages', midStream: { afterEvents: 1, kind: 'error-event' } });
    const before = usageRowCount(rig.pb);
    const stream = anthropic.messages.stream({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'fall back' }] }, { headers: { 'x-patchbay-fallback': 'openai/gpt-4o' } });
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const message = await stream.finalMessage();
    expect(types.filter((t) => t === 'message_start')).toHaveLength(1);
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'You said: fall back' })]);
    const [row] = await newUsageRows(rig.pb, before);
    expect(row).toMatchObject({ provider: 'openai', endpoint: 'messages' });
    expect(row.attempts).toHaveLength(2);
  });

  // The upstream's events arrive in one network read (no delay: they coalesce) or one by one: the
  // relay decides event by event, so the client sees the same either way (it once depended on the machine).
  it.each([0, 25])('a failure after the first byte ends the stream with the upstream\'s own event: error, which the SDK throws (upstream events %i ms apart)', async (delayMs) => {
    rig.emulators.anthropic.chunkDelayMs = delayMs;
    try {
      rig.emulators.anthropic.inject({ path: '/v1/messages', midStream: { afterEvents: 4, kind: 'error-event' } });
      const stream = anthropic.messages.stream({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'one two three four five six' }] });
      const texts: string[] = [];
      stream.on('text', (text) => texts.push(text));
      const error = await failure(stream.finalMessage());
      expect(error.error).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
      // The content before the error reached the client (the stream was committed).
      expect(texts.join('')).not.toBe('');
    } finally {
      rig.emulators.anthropic.chunkDelayMs = 0;
    }
  });

  it('an overload before any content is answered as overloaded_error, not api_error', async () => {
    rig.emulators.anthropic.inject({ path: '/v1/messages', midStream: { afterEvents: 1, kind: 'error-event' } });
    const stream = anthropic.messages.stream({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'one two three four five six' }] });
    const error = await failure(stream.finalMessage());
    expect(error.error).toMatchObject({ type: 'error', error: { type: 'overloaded_error', code: 'all_providers_failed' } });
  });
});

describe('thinking (Anthropic)', () => {
  const params = { model: CLAUDE, max_tokens: 4000, thinking: { type: 'enabled' as const, budget_tokens: 1024 }, messages: [{ role: 'user' as const, content: 'Think first' }] };

  it('create returns a signed thinking block before the text; replaying it is accepted', async () => {
    const message = await anthropic.messages.create(params);
    expect(message.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    expect(message.content[0]).toMatchObject({ type: 'thinking', thinking: expect.stringMatching(/./), signature: expect.stringMatching(/./) });
    const next = await anthropic.messages.create({ ...params, messages: [...params.messages, { role: 'assistant', content: message.content }, { role: 'user', content: 'And now?' }] });
    expect(next.content[next.content.length - 1]).toMatchObject({ type: 'text', text: 'You said: And now?' });
  });

  it('stream delivers thinking_delta and signature_delta; finalMessage() has the signed block', async () => {
    const stream = anthropic.messages.stream(params);
    const deltas: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta') deltas.push(event.delta.type);
    });
    const message = await stream.finalMessage();
    expect(deltas).toContain('thinking_delta');
    expect(deltas.indexOf('signature_delta')).toBeGreaterThan(deltas.indexOf('thinking_delta'));
    expect(message.content[0]).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/./) });
  });
});

describe('every error on the Anthropic ingress is in Anthropic’s shape', () => {
  it('an endpoint Patchbay does not serve, asked by the SDK or under /v1/messages: 404 not_found_error saying what is served', async () => {
    const batches = await failure(anthropic.messages.batches.create({ requests: [{ custom_id: 'a', params: { model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] } }] }));
    expect(batches).toBeInstanceOf(Anthropic.NotFoundError);
    expect(batches.error).toMatchObject({ type: 'error', error: { type: 'not_found_error', message: expect.stringContaining('POST /v1/messages') } });

    const get = await fetch(`${rig.pb.patchbay.url}/v1/messages`, { headers: { 'x-api-key': rig.pb.key } });
    expect(get.status).toBe(404);
    expect(await get.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error', message: expect.stringContaining('no endpoint GET /v1/messages') } });

    // An OpenAI client's unknown path keeps OpenAI's shape.
    const openAi = await fetch(`${rig.pb.patchbay.url}/v1/assistants`, { method: 'POST', headers: { authorization: `Bearer ${rig.pb.key}` } });
    expect(openAi.status).toBe(404);
    expect(await openAi.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'unknown_url' } });
  });

  it('an answer that fails to be written becomes a 500 api_error in Anthropic’s shape, not OpenAI’s', async () => {
    // A param that JSON cannot serialise makes writing the error answer itself fail (the last-resort path).
    const unserialisable = new InvalidRequestError('bad', 1n as unknown as string);
    const logs: string[] = [];
    const server = createServer((_req, res) => renderError(res, unserialisable, (m) => logs.push(m), anthropicCodec));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ type: 'error', error: { type: 'api_error', message: expect.stringContaining('internal error') } });
      expect(logs.join('\n')).toContain('BigInt');
    } finally {
      server.close();
    }
  });
});
