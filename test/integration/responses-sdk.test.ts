import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUsageRows, PROVIDERS, startRig, usageRowCount, type ProviderName, type Rig } from '../helpers/conformance-matrix.ts';

/**
 * POST /v1/responses driven by the official openai client (responses.create, responses.stream
 * with its event helpers) against each of the five providers behind their emulators: OpenAI is
 * pass-through, the others are translated through the neutral model.
 */

let rig: Rig;
let client: OpenAI;

beforeAll(async () => {
  rig = await startRig();
  client = rig.client;
});
afterAll(() => rig.stop());

const WEATHER = { type: 'function' as const, name: 'get_weather', description: 'Weather in a city', strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

function expectUsage(usage: OpenAI.Responses.ResponseUsage | undefined): void {
  expect(usage).toBeDefined();
  expect(usage!.input_tokens).toBeGreaterThan(0);
  expect(usage!.output_tokens).toBeGreaterThan(0);
  expect(usage!.total_tokens).toBe(usage!.input_tokens + usage!.output_tokens);
  // Codex refuses a response.completed whose usage lacks either detail object.
  expect(usage!.input_tokens_details.cached_tokens).toBeTypeOf('number');
  expect(usage!.output_tokens_details.reasoning_tokens).toBeTypeOf('number');
}

describe.each(PROVIDERS.map((p) => [p.name, p] as const))('/v1/responses via %s', (name: ProviderName, provider) => {
  it('create: a completed response with output_text and usage, recorded as a responses row', async () => {
    const before = usageRowCount(rig.pb);
    const response = await client.responses.create({ model: provider.chat, instructions: 'Be brief.', input: 'Hello there', store: false });
    expect(response).toMatchObject({ object: 'response', status: 'completed', error: null, incomplete_details: null });
    expect(response.id).toMatch(/^resp_/);
    expect(response.output_text).toBe('You said: Hello there');
    expect(response.output).toEqual([expect.objectContaining({ type: 'message', role: 'assistant', status: 'completed' })]);
    expectUsage(response.usage);
    const [row] = await newUsageRows(rig.pb, before);
    expect(row).toMatchObject({ endpoint: 'responses', provider: name, model: provider.servedChat, status: 200, stream: 0 });
    expect(row.prompt_tokens).toBe(response.usage!.input_tokens);
    expect(row.completion_tokens).toBe(response.usage!.output_tokens);
  });

  it('stream: the Responses event order with increasing sequence_number, text deltas, finalResponse()', async () => {
    const before = usageRowCount(rig.pb);
    const stream = client.responses.stream({ model: provider.chat, input: [{ role: 'user', content: [{ type: 'input_text', text: 'Stream this please' }] }] });
    const events: { type: string; sequence_number: number }[] = [];
    stream.on('event', (event) => events.push(event));
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const response = await stream.finalResponse();
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('You said: Stream this please');
    expect(response.output_text).toBe('You said: Stream this please');
    expect(response.status).toBe('completed');
    expectUsage(response.usage);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    const types = events.map((e) => e.type).filter((t) => t !== 'response.output_text.delta');
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const [row] = await newUsageRows(rig.pb, before);
    expect(row).toMatchObject({ endpoint: 'responses', provider: name, stream: 1, status: 200 });
    expect(row.completion_tokens).toBe(response.usage!.output_tokens);
  });

  it('tools: a function_call with call_id, then the previous output items replayed with its function_call_output', async () => {
    const first = await client.responses.create({ model: provider.chat, tools: [WEATHER], tool_choice: 'required', input: 'Weather in Paris?' });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '{"city":"city-value"}', status: 'completed' });
    expect(call!.type === 'function_call' && call!.call_id).toMatch(/^[a-zA-Z0-9_-]+$/);
    // The same through a stream: argument deltas assemble to the same arguments.
    const stream = client.responses.stream({ model: provider.chat, tools: [WEATHER], tool_choice: 'required', input: 'Weather in Paris?' });
    const argumentDeltas: string[] = [];
    stream.on('response.function_call_arguments.delta', (event) => argumentDeltas.push(event.delta));
    const streamed = await stream.finalResponse();
    expect(argumentDeltas.join('')).toBe('{"city":"city-value"}');
    expect(streamed.output.find((item) => item.type === 'function_call')).toMatchObject({ name: 'get_weather', arguments: '{"city":"city-value"}' });
    const second = await client.responses.create({
      model: provider.chat,
      tools: [WEATHER],
      input: [{ role: 'user', content: 'Weather in Paris?' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'function_call_output', call_id: call!.type === 'function_call' ? call!.call_id : '', output: 'sunny' }],
    });
    expect(second.status).toBe('completed');
    expect(second.output_text).toBe('The tool returned sunny');
  });

  it('json_schema: text.format reaches the upstream and the answer is the JSON it asks for', async () => {
    const before = rig.emulators[name].requests.length;
    const response = await client.responses.create({
      model: provider.chat,
      input: 'Name a city',
      text: { format: { type: 'json_schema', name: 'city', strict: true, schema: { type: 'object', properties: { city_name: { type: 'string' } }, required: ['city_name'], additionalProperties: false } } },
    });
    expect(response.status).toBe('completed');
    const upstream = rig.emulators[name].requests.slice(before).map((r) => JSON.stringify(r.body));
    expect(upstream.some((body) => body.includes('"city_name"'))).toBe(true);
    if (name === 'openai' || name === 'anthropic') expect(JSON.parse(response.output_text)).toEqual({ city_name: expect.any(String) });
  });

  it('max_output_tokens: a cut answer is incomplete with reason max_output_tokens', async () => {
    const response = await client.responses.create({ model: provider.chat, max_output_tokens: 16, input: Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ') });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.output_text.length).toBeGreaterThan(0);
  });
});
