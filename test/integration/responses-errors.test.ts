import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBadRequest, newUsageRows, PROVIDERS, startRig, usageRowCount, type Rig } from '../helpers/conformance-matrix.ts';

/**
 * /v1/responses refusals, fallback and failures through the official openai client: the stateless
 * rules, built-in tools, malformed input items, fallback only before the first byte (on the
 * translated and the pass-through path), and a failure after it ending with response.failed.
 */

let rig: Rig;
let client: OpenAI;

beforeAll(async () => {
  rig = await startRig();
  client = rig.client;
});
afterAll(() => rig.stop());

const GPT = 'openai/gpt-4o';
const CLAUDE = 'anthropic/claude-haiku-4-5-20251001';

/** The raw events of a streamed create, as the client yields them, and what it threw (if anything). */
async function collect(params: OpenAI.Responses.ResponseCreateParamsStreaming, headers: Record<string, string> = {}): Promise<{ events: OpenAI.Responses.ResponseStreamEvent[]; error: unknown }> {
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  try {
    const stream = await client.responses.create(params, { headers });
    for await (const event of stream) events.push(event);
    return { events, error: null };
  } catch (error) {
    return { events, error };
  }
}

describe('stateless rules', () => {
  it('previous_response_id: 400 naming it, saying Patchbay is stateless and to send the full input', async () => {
    const error = await expectBadRequest(client.responses.create({ model: GPT, input: 'hi', previous_response_id: 'resp_123' }), 'previous_response_id');
    expect(error.message).toMatch(/stateless/);
    expect(error.message).toMatch(/whole conversation in 'input'/);
  });

  it('conversation: 400 naming it', async () => {
    await expectBadRequest(client.responses.create({ model: CLAUDE, input: 'hi', conversation: 'conv_123' }), 'conversation');
  });

  it('store: accepted (true or false) and answered', async () => {
    const response = await client.responses.create({ model: CLAUDE, input: 'hi', store: true });
    expect(response.status).toBe('completed');
  });
});

describe('bad input gets a 400 naming the field, for every provider', () => {
  it.each(PROVIDERS.map((p) => [p.name, p.chat] as const))('%s: a function_call without call_id, arguments that are not JSON, a bad temperature', async (_name, model) => {
    await expectBadRequest(client.responses.create({ model, input: [{ role: 'user', content: 'hi' }, { type: 'function_call', name: 'f', arguments: '{}' } as never] }), 'input[1].call_id');
    await expectBadRequest(client.responses.create({ model, input: [{ type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{oops' }] }), 'input[0].arguments');
    await expectBadRequest(client.responses.create({ model, input: 'hi', temperature: 5 }), 'temperature');
    await expectBadRequest(client.responses.create({ model, input: [{ role: 'robot', content: 'hi' } as never] }), 'input[0].role');
  });
});

describe('capabilities', () => {
  const PIXEL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

  it('an image reaches a model that takes images (translated), and a model without images gets a 400 naming input', async () => {
    const input = [{ role: 'user' as const, content: [{ type: 'input_text' as const, text: 'What is this?' }, { type: 'input_image' as const, image_url: PIXEL, detail: 'auto' as const }] }];
    const seen = await client.responses.create({ model: CLAUDE, input });
    expect(seen.output_text).toMatch(/image/i);
    await expectBadRequest(client.responses.create({ model: 'groq/llama-3.3-70b-versatile', input }), 'input');
  });
});

describe('built-in tools', () => {
  it('reach OpenAI unchanged', async () => {
    const before = rig.emulators.openai.requests.length;
    const response = await client.responses.create({ model: GPT, input: 'Search the news', tools: [{ type: 'web_search' }] });
    expect(response.status).toBe('completed');
    const sent = rig.emulators.openai.requests.slice(before).find((r) => r.path.endsWith('/responses'));
    expect((sent!.body as { tools: unknown[] }).tools).toEqual([{ type: 'web_search' }]);
  });

  it.each(PROVIDERS.filter((p) => p.name !== 'openai').map((p) => [p.name, p.chat] as const))('%s: offered, not forced, left out and named in X-Patchbay-Dropped', async (name, model) => {
    const before = rig.emulators[name].requests.length;
    const { data, response } = await client.responses.create({ model, input: 'Search', tools: [{ type: 'function', name: 'f', parameters: { type: 'object', properties: {} }, strict: false }, { type: 'file_search', vector_store_ids: ['vs_1'] }] }).withResponse();
    expect(data.status).toBe('completed');
    expect(response.headers.get('x-patchbay-dropped')).toBe('tools[file_search]');
    expect(JSON.stringify(rig.emulators[name].requests.slice(before).map((r) => r.body))).not.toContain('file_search');
  });

  it.each(PROVIDERS.filter((p) => p.name !== 'openai').map((p) => [p.name, p.chat] as const))('%s: forced by tool_choice, a clear 400 naming tools[i].type', async (name, model) => {
    const error = await expectBadRequest(client.responses.create({ model, input: 'Search', tool_choice: { type: 'file_search' }, tools: [{ type: 'function', name: 'f', parameters: { type: 'object', properties: {} }, strict: false }, { type: 'file_search', vector_store_ids: ['vs_1'] }] }), 'tools[1].type');
    expect(error.message).toContain(name);
    expect(error.message).toContain('file_search');
    expect(error.message).toMatch(/use an OpenAI model/);
  });
});

describe('fallback and failures', () => {
  it('translated path: a stream that failed before output falls back; one response.created reaches the client', async () => {
    rig.emulators.anthropic.inject({ path: '/v1/messages', midStream: { afterEvents: 1, kind: 'error-event' } });
    const before = usageRowCount(rig.pb);
    const { events, error } = await collect({ model: CLAUDE, input: 'fall back', stream: true }, { 'x-patchbay-fallback': GPT });
    expect(error).toBeNull();
    expect(events.filter((e) => e.type === 'response.created')).toHaveLength(1);
    expect(events[events.length - 1].type).toBe('response.completed');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const [row] = await newUsageRows(rig.pb, before);
    expect(row).toMatchObject({ provider: 'openai', endpoint: 'responses', status: 200 });
    expect(row.attempts).toHaveLength(2);
  });

  it('pass-through: OpenAI failing before output (500, or response.failed after response.created) falls back to another provider', async () => {
    rig.emulators.openai.inject({ path: '/v1/responses', status: 500 });
    const json = await client.responses.create({ model: GPT, input: 'fall back' }, { headers: { 'x-patchbay-fallback': CLAUDE } }).withResponse();
    expect(json.response.headers.get('x-patchbay-provider')).toBe('anthropic');
    expect(json.data.output_text).toBe('You said: fall back');
    rig.emulators.openai.inject({ path: '/v1/responses', midStream: { afterEvents: 2, kind: 'error-event' } });
    const { events, error } = await collect({ model: GPT, input: 'fall back', stream: true }, { 'x-patchbay-fallback': CLAUDE });
    expect(error).toBeNull();
    expect(events.filter((e) => e.type === 'response.created')).toHaveLength(1);
    expect(events.some((e) => e.type === 'response.failed')).toBe(false);
    expect(events[events.length - 1].type).toBe('response.completed');
  });

  it("pass-through: OpenAI's own response.failed after output is forwarded as the one terminal event, and the request recorded as failed", async () => {
    rig.emulators.openai.inject({ path: '/v1/responses', midStream: { afterEvents: 6, kind: 'error-event' } });
    const before = usageRowCount(rig.pb);
    const { events } = await collect({ model: GPT, input: 'one two three four five six seven eight', stream: true }, { 'x-patchbay-fallback': CLAUDE });
    expect(events.filter((e) => e.type === 'response.failed')).toHaveLength(1);
    expect(events[events.length - 1]).toMatchObject({ type: 'response.failed', sequence_number: 6, response: { error: { code: 'server_error' } } });
    const [row] = await newUsageRows(rig.pb, before);
    expect(row).toMatchObject({ endpoint: 'responses', provider: 'openai', status: 502 });
  });

  it.each([
    ['translated (Anthropic)', CLAUDE, 'anthropic', '/v1/messages', 5],
    ['pass-through (OpenAI)', GPT, 'openai', '/v1/responses', 6],
  ] as const)('%s: a cut after output ends with response.failed, numbered in sequence, recorded as failed', async (_label, model, emulator, path, afterEvents) => {
    rig.emulators[emulator].inject({ path, midStream: { afterEvents, kind: 'drop' } });
    const before = usageRowCount(rig.pb);
    const { events } = await collect({ model, input: 'one two three four five six seven eight', stream: true });
    const last = events[events.length - 1];
    expect(events.some((e) => e.type === 'response.output_text.delta')).toBe(true);
    expect(last.type).toBe('response.failed');
    expect(last.type === 'response.failed' && last.response.error).toMatchObject({ code: 'server_error', message: expect.stringMatching(/./) });
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const [row] = await newUsageRows(rig.pb, before);
    expect(row).toMatchObject({ endpoint: 'responses', status: 502 });
  });
});
