import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicEmulator, anthropicInputTokens } from './anthropic-emulator.ts';
import { call, parseSse, readUntilEnd } from './emulator-test-helpers.ts';

const KEY = 'sk-ant-emulator-key';
const HEADERS = { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' };
const MODEL = 'claude-sonnet-4-5-20250929';
const WEATHER = { name: 'get_weather', description: 'Current weather', input_schema: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city'] } };
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('Anthropic emulator (Messages API wire format)', () => {
  const emulator = new AnthropicEmulator({ apiKey: KEY });
  let base = '';
  const messages = (body: Record<string, unknown>, headers: Record<string, string> = HEADERS) => call(`${base}/v1/messages`, { headers, body: { model: MODEL, max_tokens: 1024, ...body } });
  const ask = (text: string) => [{ role: 'user', content: text }];

  beforeAll(async () => {
    base = await emulator.start();
  });
  afterAll(() => emulator.close());
  beforeEach(() => emulator.clearFaults());

  it('authenticates with x-api-key or a Bearer token, and requires anthropic-version', async () => {
    const good = await messages({ messages: ask('hi') });
    expect(good.status).toBe(200);
    expect((await messages({ messages: ask('hi') }, { authorization: `Bearer ${KEY}`, 'anthropic-version': '2023-06-01' })).status).toBe(200);
    const missing = await messages({ messages: ask('hi') }, { 'anthropic-version': '2023-06-01' });
    expect(missing.status).toBe(401);
    expect(missing.json).toMatchObject({ type: 'error', error: { type: 'authentication_error', message: 'x-api-key header is required' } });
    const wrong = await messages({ messages: ask('hi') }, { 'x-api-key': 'nope', 'anthropic-version': '2023-06-01' });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' }, request_id: expect.stringMatching(/^req_011C/) });
    expect(wrong.headers.get('request-id')).toBe(wrong.json.request_id);
    const noVersion = await messages({ messages: ask('hi') }, { 'x-api-key': KEY });
    expect(noVersion.status).toBe(400);
    expect(noVersion.json.error.message).toContain('anthropic-version');
  });

  it('answers a non-streaming message with content blocks, stop_reason, usage and rate-limit headers', async () => {
    const body = { system: 'Be brief.', messages: ask('hello there') };
    const res = await messages(body);
    expect(res.json).toMatchObject({
      id: expect.stringMatching(/^msg_01/),
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content: [{ type: 'text', text: 'You said: hello there' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: anthropicInputTokens({ model: MODEL, max_tokens: 1024, ...body }), output_tokens: 4, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
    // system (2 words + 3) + user (2 words + 3) + 3 priming
    expect(res.json.usage.input_tokens).toBe(13);
    expect(res.headers.get('request-id')).toMatch(/^req_/);
    for (const kind of ['requests', 'tokens', 'input-tokens', 'output-tokens']) {
      expect(Number(res.headers.get(`anthropic-ratelimit-${kind}-limit`))).toBeGreaterThan(0);
      expect(res.headers.get(`anthropic-ratelimit-${kind}-reset`)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }
  });

  it('streams the exact named-event sequence, each data.type matching its event, with cumulative usage', async () => {
    const res = await messages({ messages: ask('one two three'), stream: true });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSse(res.text);
    expect(events.map((e) => e.event)).toEqual([
      'message_start', 'content_block_start', 'ping',
      ...Array(5).fill('content_block_delta'),
      'content_block_stop', 'message_delta', 'message_stop',
    ]);
    for (const e of events) expect(e.json.type).toBe(e.event);
    expect(res.text).not.toContain('[DONE]');
    expect(events[0].json.message).toMatchObject({ content: [], stop_reason: null, stop_sequence: null, usage: { output_tokens: 1 } });
    expect(events[1].json).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    const text = events.filter((e) => e.event === 'content_block_delta').map((e) => e.json.delta.text).join('');
    expect(text).toBe('You said: one two three');
    expect(events.at(-2)!.json).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { input_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 5 },
    });
  });

  it('calls the first tool (or the forced one) with tool_use blocks and stop_reason tool_use', async () => {
    const res = await messages({ messages: ask('Weather in Paris?'), tools: [WEATHER, { name: 'other', input_schema: { type: 'object', properties: { q: {} } } }] });
    expect(res.json.stop_reason).toBe('tool_use');
    expect(res.json.content).toEqual([{ type: 'tool_use', id: expect.stringMatching(/^toolu_01/), name: 'get_weather', input: { city: 'city-value' } }]);
    expect(res.json.usage.output_tokens).toBe(6);
    const forced = await messages({ messages: ask('x'), tools: [WEATHER, { name: 'other', input_schema: { type: 'object', properties: { q: {} } } }], tool_choice: { type: 'tool', name: 'other' } });
    expect(forced.json.content[0]).toMatchObject({ name: 'other', input: { q: 'q-value' } });
    const none = await messages({ messages: ask('x'), tools: [WEATHER], tool_choice: { type: 'none' } });
    expect(none.json).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: 'You said: x' }] });
  });

  it('streams tool input as input_json_delta fragments after a tool_use block start with empty input', async () => {
    const res = await messages({ messages: ask('Weather?'), tools: [WEATHER], stream: true });
    const events = parseSse(res.text);
    expect(events[1].json.content_block).toEqual({ type: 'tool_use', id: expect.stringMatching(/^toolu_/), name: 'get_weather', input: {} });
    const partial = events.filter((e) => e.json.delta?.type === 'input_json_delta').map((e) => e.json.delta.partial_json);
    expect(partial[0]).toBe('');
    expect(JSON.parse(partial.join(''))).toEqual({ city: 'city-value' });
    expect(events.find((e) => e.event === 'message_delta')!.json.delta.stop_reason).toBe('tool_use');
  });

  it('puts a text block before the tool call when configured, so block index and tool ordinal differ', async () => {
    const chatty = new AnthropicEmulator({ apiKey: KEY, toolPreamble: "I'll check." });
    const url = await chatty.start();
    try {
      const res = await call(`${url}/v1/messages`, { headers: HEADERS, body: { model: MODEL, max_tokens: 100, messages: ask('Weather?'), tools: [WEATHER], stream: true } });
      const starts = parseSse(res.text).filter((e) => e.event === 'content_block_start').map((e) => [e.json.index, e.json.content_block.type]);
      expect(starts).toEqual([[0, 'text'], [1, 'tool_use']]);
    } finally {
      await chatty.close();
    }
  });

  it('answers tool results and mentions images', async () => {
    const res = await messages({
      tools: [WEATHER],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A', content: '18°C and sunny' }] },
      ],
    });
    expect(res.json.content[0].text).toBe('The tool returned 18°C and sunny');
    const image = await messages({ messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }] }] });
    expect(image.json.content[0].text).toMatch(/^I see an image\. You said: What is this\?/);
    const url = await messages({ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } }, { type: 'text', text: 'cat?' }] }] });
    expect(url.json.content[0].text).toMatch(/^I see an image\./);
  });

  it('honours stop_sequences and max_tokens', async () => {
    const stopped = await messages({ messages: ask('alpha ### beta'), stop_sequences: ['###', 'zzz'] });
    expect(stopped.json).toMatchObject({ stop_reason: 'stop_sequence', stop_sequence: '###', content: [{ text: 'You said: alpha ' }] });
    const limited = await messages({ messages: ask('one two three four'), max_tokens: 3 });
    expect(limited.json).toMatchObject({ stop_reason: 'max_tokens', stop_sequence: null, content: [{ text: 'You said: one' }], usage: { output_tokens: 3 } });
  });

  it.each([
    ['missing max_tokens', { max_tokens: undefined, messages: ask('x') }, 'max_tokens: Field required'],
    ['a tool role in messages', { messages: [...ask('x'), { role: 'tool', content: 'y' }] }, "messages.1.role: Input should be 'user', 'assistant' or 'system'"],
    ['only deferred tools', { messages: ask('x'), tools: [{ ...WEATHER, defer_loading: true }] }, 'tools: at least one tool must not have defer_loading set to true'],
    [
      'a tool_addition without the tool-changes beta',
      { messages: [...ask('x'), { role: 'system', content: [{ type: 'tool_addition', tool: { type: 'tool_reference', name: 'get_weather' } }] }, ...ask('y')], tools: [WEATHER] },
      'messages.1.content.0: tool_addition blocks need the mid-conversation-tool-changes-2026-07-01 beta',
    ],
    [
      'a tool_reference to a tool not deferred',
      { messages: [...ask('w'), { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'tool_reference', tool_name: 'get_weather' }] }] }], tools: [WEATHER] },
      "tool reference 'get_weather' names a tool without defer_loading",
    ],
    ['an output_config.format without a schema', { messages: ask('x'), output_config: { format: { type: 'json_schema' } } }, 'output_config.format.json_schema.schema: Field required'],
    ['empty messages', { messages: [] }, 'messages: at least one message is required'],
    ['temperature above 1', { messages: ask('x'), temperature: 1.5 }, 'temperature: Input should be less than or equal to 1'],
    ['temperature with top_p on Sonnet 4.5', { messages: ask('x'), temperature: 0.5, top_p: 0.9 }, '`temperature` and `top_p` cannot both be specified for this model. Please use only one.'],
    ['a whitespace-only stop sequence', { messages: ask('x'), stop_sequences: ['\n'] }, 'stop_sequences: each stop sequence must contain non-whitespace'],
    ['an empty stop sequence', { messages: ask('x'), stop_sequences: [''] }, 'stop_sequences: each stop sequence must be non-empty'],
    ['an empty assistant turn', { messages: [...ask('a'), { role: 'assistant', content: '' }, ...ask('b')] }, 'messages.1: all messages must have non-empty content except for the optional final assistant message'],
    ['max_tokens above the model maximum', { messages: ask('x'), max_tokens: 100000 }, 'max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5-20250929'],
    ['a data URL as base64 image data', { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: `data:image/png;base64,${PNG}` } }] }] }, 'messages.0.content.0.image.source.base64.data'],
    ['tool_choice without tools', { messages: ask('x'), tool_choice: { type: 'any' } }, 'tool_choice may only be specified while providing tools.'],
    ['a tool without input_schema', { messages: ask('x'), tools: [{ name: 't' }] }, 'tools.0.custom.input_schema: Field required'],
    [
      'text before the tool_result',
      { messages: [...ask('w'), { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }] }, { role: 'user', content: [{ type: 'text', text: 'here' }, { type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] }], tools: [WEATHER] },
      'messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message.',
    ],
    [
      'a tool_use left unanswered',
      { messages: [...ask('w'), { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }] }, ...ask('and?')], tools: [WEATHER] },
      '`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1',
    ],
  ])('rejects %s with 400 invalid_request_error', async (_name, body, message) => {
    const res = await messages(body as Record<string, unknown>);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' }, request_id: expect.stringMatching(/^req_/) });
    expect(res.json.error.message).toContain(message);
    expect(res.headers.get('x-should-retry')).toBe('false');
  });

  it("accepts what Claude Code sends (deferred tools, tool references, output_config, context_management, adaptive thinking, tool changes under the beta) and hides deferred tools from the model", async () => {
    const placeholder = { name: 'DeferredToolPlaceholder', description: 'never call this tool', defer_loading: true, input_schema: { type: 'object', properties: {} } };
    const search = { name: 'ToolSearch', input_schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } };
    const fetchTool = { name: 'WebFetch', defer_loading: true, input_schema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] } };
    const beta = { ...HEADERS, 'anthropic-beta': 'context-management-2025-06-27,mid-conversation-tool-changes-2026-07-01' };
    const common = { thinking: { type: 'adaptive', display: 'omitted' }, context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] }, output_config: { effort: 'high' } };
    const first = await messages({ ...common, messages: ask('find it'), tools: [placeholder, search, fetchTool] }, beta);
    expect(first.status).toBe(200);
    expect(first.json.content.find((b: { type: string }) => b.type === 'tool_use')?.name).toBe('ToolSearch');
    const loaded = await messages(
      {
        ...common,
        tools: [placeholder, fetchTool, search],
        messages: [
          ...ask('find it'),
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ToolSearch', input: { query: 'fetch' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'tool_reference', tool_name: 'WebFetch' }] }] },
          { role: 'system', content: [{ type: 'text', text: 'Plan mode is off.' }, { type: 'tool_removal', tool: { type: 'tool_reference', name: 'ToolSearch' } }] },
          { role: 'assistant', content: 'Loaded.' },
          ...ask('now fetch'),
        ],
      },
      beta,
    );
    expect(loaded.status, JSON.stringify(loaded.json)).toBe(200);
    // WebFetch was loaded by the reference and ToolSearch removed: the model sees WebFetch only.
    expect(loaded.json.content.find((b: { type: string }) => b.type === 'tool_use')?.name).toBe('WebFetch');
    const title = await messages({ messages: ask('name this session'), output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } } } });
    expect(JSON.parse(title.json.content[0].text)).toEqual({ title: 'title-value' });
  });

  it('answers an unknown model with 404 not_found_error, and accepts an assistant first turn and aliases', async () => {
    const unknown = await messages({ model: 'claude-3-opus-latest', messages: ask('x') });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toEqual({ type: 'not_found_error', message: 'model: claude-3-opus-latest' });
    // The first-party API accepts an assistant first turn (only Bedrock rejects it: anthropic-sdk-typescript#622).
    expect((await messages({ messages: [{ role: 'assistant', content: 'How can I help?' }, ...ask('hi')] })).status).toBe(200);
    expect((await messages({ model: 'claude-haiku-4-5', messages: ask('hi') })).status).toBe(200);
  });

  it('lists models newest first with pagination, and retrieves one by id or alias', async () => {
    const all = await call(`${base}/v1/models`, { headers: HEADERS });
    expect(all.json.data.map((m: { id: string }) => m.id)).toEqual(['claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-opus-4-5-20251101', 'claude-haiku-4-5-20251001', 'claude-sonnet-4-5-20250929']);
    expect(all.json).toMatchObject({ has_more: false, first_id: 'claude-opus-5-5', last_id: 'claude-sonnet-4-5-20250929' });
    expect(all.json.data[3]).toMatchObject({ type: 'model', display_name: 'Claude Opus 4.5', created_at: '2025-11-01T00:00:00Z' });
    const page = await call(`${base}/v1/models?limit=1&after_id=claude-opus-4-5-20251101`, { headers: HEADERS });
    expect(page.json).toMatchObject({ data: [{ id: 'claude-haiku-4-5-20251001' }], has_more: true });
    expect((await call(`${base}/v1/models/claude-sonnet-4-5`, { headers: HEADERS })).json.id).toBe('claude-sonnet-4-5-20250929');
  });

  it.each([
    [429, 'rate_limit_error', '12', 'true'],
    [500, 'api_error', null, 'true'],
    [529, 'overloaded_error', null, 'true'],
  ])('injects a %i as %s', async (status, type, retryAfter, shouldRetry) => {
    emulator.inject({ path: '/v1/messages', status });
    const res = await messages({ messages: ask('x') });
    expect(res.status).toBe(status);
    expect(res.json).toMatchObject({ type: 'error', error: { type }, request_id: expect.stringMatching(/^req_/) });
    expect(res.headers.get('retry-after')).toBe(retryAfter);
    expect(res.headers.get('x-should-retry')).toBe(shouldRetry);
  });

  it('sends an error event mid-stream for an injected failure, or cuts the connection', async () => {
    emulator.inject({ path: '/v1/messages', midStream: { afterEvents: 4, kind: 'error-event' } });
    const res = await messages({ messages: ask('one two three'), stream: true });
    expect(res.status).toBe(200);
    const events = parseSse(res.text);
    expect(events.map((e) => e.event)).toEqual(['message_start', 'content_block_start', 'ping', 'content_block_delta', 'error']);
    expect(events.at(-1)!.json).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    emulator.inject({ path: '/v1/messages', midStream: { afterEvents: 3, kind: 'drop' } });
    const dropped = await readUntilEnd(`${base}/v1/messages`, { headers: HEADERS, body: { model: MODEL, max_tokens: 100, messages: ask('one two'), stream: true } });
    expect(dropped.cut).toBe(true);
    expect(dropped.text).toContain('event: ping');
    expect(dropped.text).not.toContain('message_stop');
  });

  it('with thinking enabled, a tool result must answer an assistant turn that begins with its signed thinking; disabled, it need not', async () => {
    const thinking = { type: 'enabled', budget_tokens: 1024 };
    const first = await messages({ max_tokens: 2048, thinking, tools: [WEATHER], messages: ask('Weather in Paris?') });
    expect(first.json.content.map((b: { type: string }) => b.type)).toEqual(['thinking', 'tool_use']);
    const [signed, use] = first.json.content;
    const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Sunny' }] };
    const own = await messages({ max_tokens: 2048, thinking, tools: [WEATHER], messages: [...ask('Weather in Paris?'), { role: 'assistant', content: first.json.content }, result] });
    expect(own.status).toBe(200);
    const foreign = await messages({ max_tokens: 2048, thinking, tools: [WEATHER], messages: [...ask('Weather in Paris?'), { role: 'assistant', content: [use] }, result] });
    expect(foreign.status).toBe(400);
    expect(foreign.json.error.message).toMatch(/^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`\. When `thinking` is enabled, a final `assistant` message must start with a thinking block/);
    expect((await messages({ max_tokens: 2048, tools: [WEATHER], messages: [...ask('Weather in Paris?'), { role: 'assistant', content: [use] }, result] })).status).toBe(200);
    const forged = await messages({ max_tokens: 2048, thinking, tools: [WEATHER], messages: [...ask('Weather in Paris?'), { role: 'assistant', content: [{ ...signed, signature: 'EMU-SIG-abc' }, use] }, result] });
    expect(forged.json.error.message).toBe('messages.1.content.0: Invalid `signature` in `thinking` block');
  });
});
