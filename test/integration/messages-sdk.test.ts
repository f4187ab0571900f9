import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUsageRows, PROVIDERS, startRig, usageRowCount, type ProviderName, type Rig } from '../helpers/conformance-matrix.ts';

/**
 * POST /v1/messages driven by the official @anthropic-ai/sdk against each of the five providers
 * (their emulators): create, stream with the SDK's event helpers and finalMessage(), a tools round
 * trip, count_tokens, and the usage rows. Anthropic is pass-through; the others are translated.
 */

let rig: Rig;
let anthropic: Anthropic;

beforeAll(async () => {
  rig = await startRig();
  anthropic = new Anthropic({ baseURL: rig.pb.patchbay.url, apiKey: rig.pb.key, maxRetries: 0 });
});
afterAll(() => rig.stop());

const WEATHER = { name: 'get_weather', description: 'Weather in a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } };

describe.each(PROVIDERS.map((p) => [p.name, p] as const))('/v1/messages via %s', (name: ProviderName, provider) => {
  it('create: a Message with text, end_turn and real usage, recorded as a messages row', async () => {
    const before = usageRowCount(rig.pb);
    const message = await anthropic.messages.create({ model: provider.chat, max_tokens: 200, system: 'Be brief.', messages: [{ role: 'user', content: 'Hello there' }] });
    expect(message).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn', stop_sequence: null });
    expect(message.id).toMatch(/^msg_/);
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'You said: Hello there' })]);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    const [row] = await newUsageRows(rig.pb, before);
    expect(row).toMatchObject({ endpoint: 'messages', provider: name, model: provider.servedChat, status: 200 });
    expect(row.prompt_tokens).toBeGreaterThan(0);
  });

  it('stream: Anthropic event order, message_start with a non-zero input count, finalMessage()', async () => {
    const before = usageRowCount(rig.pb);
    const stream = anthropic.messages.stream({ model: provider.chat, max_tokens: 200, messages: [{ role: 'user', content: 'Stream this please' }] });
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    const text: string[] = [];
    stream.on('text', (delta) => text.push(delta));
    const message = await stream.finalMessage();
    expect(text.join('')).toBe('You said: Stream this please');
    expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: 'You said: Stream this please' })]);
    expect(message.stop_reason).toBe('end_turn');
    expect(types[0]).toBe('message_start');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    const blockEvents = types.filter((t) => t.startsWith('content_block'));
    expect(blockEvents[0]).toBe('content_block_start');
    expect(blockEvents[blockEvents.length - 1]).toBe('content_block_stop');
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    const [row] = await newUsageRows(rig.pb, before);
    expect(row).toMatchObject({ endpoint: 'messages', provider: name, stream: 1, status: 200 });
    expect(row.completion_tokens).toBeGreaterThan(0);
  });

  it('tools: tool_use with a stable, Anthropic-valid id, then the tool_result answered', async () => {
    const first = await anthropic.messages.create({ model: provider.chat, max_tokens: 300, tools: [WEATHER], tool_choice: { type: 'any' }, messages: [{ role: 'user', content: 'Weather in Paris?' }] });
    expect(first.stop_reason).toBe('tool_use');
    const use = first.content.find((b) => b.type === 'tool_use');
    expect(use).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'city-value' } });
    expect(use!.type === 'tool_use' && use!.id).toMatch(/^[a-zA-Z0-9_-]+$/);
    // The same through a stream: input_json_delta fragments assemble to the same input.
    const streamed = await anthropic.messages.stream({ model: provider.chat, max_tokens: 300, tools: [WEATHER], tool_choice: { type: 'any' }, messages: [{ role: 'user', content: 'Weather in Paris?' }] }).finalMessage();
    expect(streamed.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: 'get_weather', input: { city: 'city-value' } });
    const second = await anthropic.messages.create({
      model: provider.chat,
      max_tokens: 300,
      tools: [WEATHER],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use!.type === 'tool_use' ? use!.id : '', content: 'sunny' }] },
      ],
    });
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content).toEqual([expect.objectContaining({ type: 'text', text: 'The tool returned sunny' })]);
  });

  it('count_tokens: a positive count (exact from Anthropic, else the tokenizer estimate)', async () => {
    const params = { model: provider.chat, messages: [{ role: 'user' as const, content: 'How many tokens is this?' }] };
    const { data: counted, response } = await anthropic.messages.countTokens(params).withResponse();
    expect(counted.input_tokens).toBeGreaterThan(0);
    if (name === 'anthropic') {
      const message = await anthropic.messages.create({ ...params, max_tokens: 50 });
      expect(counted.input_tokens).toBe(message.usage.input_tokens);
      expect(response.headers.get('x-patchbay-token-count')).toBe('exact');
    } else {
      expect(response.headers.get('x-patchbay-token-count')).toBe('estimate');
    }
  });
});
