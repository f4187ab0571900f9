import type { EventSourceMessage } from 'eventsource-parser';
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../../core/errors/provider-error.ts';
import { createStreamState, endStream, mapStreamEvent, streamUsage, type StreamState } from './through-neutral.ts';
import type { ChatCompletionChunk } from '../../../core/protocols/openai/chat-types.ts';
import { parseSse, readSseFixture, sse } from './read-sse-fixture.ts';

const CREATED = 1_760_000_000;
const ID = 'msg_01QC4g3HwBThD4BaNtBckFDJ';
const MODEL = 'claude-sonnet-4-5-20250929';

function run(events: EventSourceMessage[], options: { includeUsage?: boolean; jsonToolName?: string | null } = {}): { chunks: ChatCompletionChunk[]; state: StreamState } {
  let state = createStreamState({ provider: 'anthropic', includeUsage: options.includeUsage ?? false, created: CREATED, jsonToolName: options.jsonToolName ?? null });
  const chunks: ChatCompletionChunk[] = [];
  for (const event of events) {
    const step = mapStreamEvent(event, state);
    chunks.push(...step.chunks);
    state = step.state;
  }
  endStream(state);
  return { chunks, state };
}

/** The parts of a chunk that vary; id, object, created and model are checked once per stream. */
function choices(chunks: ChatCompletionChunk[]) {
  return chunks.map((c) => c.choices);
}

const head = { id: ID, object: 'chat.completion.chunk', created: CREATED, model: MODEL };

describe('mapStreamEvent on the recorded text + tool_use stream (reference 2.4)', () => {
  const events = readSseFixture('text-and-tool.sse');

  it('yields role, text, one tool call (index 0 although its content block is 1), arguments and finish', () => {
    const { chunks } = run(events);
    expect(chunks.every((c) => c.id === ID && c.object === 'chat.completion.chunk' && c.created === CREATED && c.model === MODEL)).toBe(true);
    expect(chunks.every((c) => !('usage' in c))).toBe(true);
    expect(choices(chunks)).toEqual([
      [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
      [{ index: 0, delta: { content: 'Hello' }, logprobs: null, finish_reason: null }],
      [{ index: 0, delta: { content: '! Let me check.' }, logprobs: null, finish_reason: null }],
      [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'toolu_01QE1WLsSVp5hy5Q3GmGTmjP', type: 'function', function: { name: 'get_weather', arguments: '' } }] }, logprobs: null, finish_reason: null }],
      // The empty partial_json is skipped.
      [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"city": "Par' } }] }, logprobs: null, finish_reason: null }],
      [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: 'is"}' } }] }, logprobs: null, finish_reason: null }],
      [{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' }],
    ]);
  });

  it('with include_usage: usage null on every chunk, then one choices: [] chunk with the final usage', () => {
    const { chunks } = run(events, { includeUsage: true });
    expect(chunks).toHaveLength(8);
    expect(chunks.slice(0, 7).every((c) => c.usage === null)).toBe(true);
    expect(chunks[7]).toEqual({
      ...head,
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: 48, total_tokens: 60, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } },
    });
  });

  it('reports usage from message_start and the cumulative message_delta', () => {
    const { state } = run(events);
    expect(streamUsage(state)).toEqual({ prompt_tokens: 12, completion_tokens: 48, total_tokens: 60, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } });
  });

  it('ignores ping anywhere, even before message_start', () => {
    const withPings = parseSse(sse({ type: 'ping' }) + sse({ type: 'ping' }));
    const { chunks } = run([...withPings, ...events]);
    expect(chunks).toHaveLength(7);
  });
});

const start = (usage: Record<string, number> = { input_tokens: 20, output_tokens: 1 }) =>
  sse({ type: 'message_start', message: { id: ID, type: 'message', role: 'assistant', model: MODEL, content: [], stop_reason: null, stop_sequence: null, usage } });
const textBlock = (index: number, ...texts: string[]) =>
  sse({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }) +
  texts.map((text) => sse({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } })).join('') +
  sse({ type: 'content_block_stop', index });
const toolBlock = (index: number, id: string, name: string, ...parts: string[]) =>
  sse({ type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } }) +
  parts.map((partial_json) => sse({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } })).join('') +
  sse({ type: 'content_block_stop', index });
const finish = (stop_reason: string, usage: Record<string, number> = { output_tokens: 30 }) =>
  sse({ type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage }) + sse({ type: 'message_stop' });

describe('mapStreamEvent on interleaved text and two tool calls', () => {
  const wire =
    start() +
    textBlock(0, 'Checking both.') +
    toolBlock(1, 'toolu_A', 'get_weather', '', '{"city":', '"Paris"}') +
    sse({ type: 'ping' }) +
    textBlock(2, ' And', ' Rome.') +
    toolBlock(3, 'toolu_B', 'get_time', '{"tz":"Europe/Rome"}') +
    finish('tool_use');

  it('numbers tool calls 0 and 1 by ordinal while their content blocks are 1 and 3', () => {
    expect(choices(run(parseSse(wire)).chunks).map(([c]) => [c.delta, c.finish_reason])).toEqual([
      [{ role: 'assistant', content: '' }, null],
      [{ content: 'Checking both.' }, null],
      [{ tool_calls: [{ index: 0, id: 'toolu_A', type: 'function', function: { name: 'get_weather', arguments: '' } }] }, null],
      [{ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }, null],
      [{ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }, null],
      [{ content: ' And' }, null],
      [{ content: ' Rome.' }, null],
      [{ tool_calls: [{ index: 1, id: 'toolu_B', type: 'function', function: { name: 'get_time', arguments: '' } }] }, null],
      [{ tool_calls: [{ index: 1, function: { arguments: '{"tz":"Europe/Rome"}' } }] }, null],
      [{}, 'tool_calls'],
    ]);
  });
});

describe('mapStreamEvent finish reasons, usage and odd events', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['pause_turn', 'stop'],
    ['refusal', 'content_filter'],
    ['a_future_reason', 'stop'],
  ])('maps stop_reason %s to %s', (stopReason, finishReason) => {
    const { chunks } = run(parseSse(start() + textBlock(0, 'x') + finish(stopReason)));
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe(finishReason);
  });

  it('counts cache reads and writes into prompt tokens and shows cache reads as cached_tokens', () => {
    const wire =
      start({ input_tokens: 5, cache_creation_input_tokens: 100, cache_read_input_tokens: 2000, output_tokens: 1 }) +
      textBlock(0, 'x') +
      sse({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 10 } }) +
      sse({ type: 'message_delta', delta: { stop_reason: null, stop_sequence: null }, usage: { output_tokens: 12 } }) +
      sse({ type: 'message_stop' });
    const { chunks, state } = run(parseSse(wire), { includeUsage: true });
    // A second message_delta updates usage but sends no second finish chunk.
    expect(chunks.filter((c) => c.choices[0]?.finish_reason)).toHaveLength(1);
    expect(streamUsage(state)).toEqual({ prompt_tokens: 2105, completion_tokens: 12, total_tokens: 2117, prompt_tokens_details: { cached_tokens: 2000 }, completion_tokens_details: { reasoning_tokens: 0 } });
    expect(chunks[chunks.length - 1].usage).toEqual(streamUsage(state));
  });

  it('drops thinking and signature deltas, skips unknown event types and ignores events after message_stop', () => {
    const wire =
      start() +
      sse({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }) +
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm.' } }) +
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqQB' } }) +
      sse({ type: 'content_block_stop', index: 0 }) +
      sse({ type: 'some_future_event', detail: 1 }) +
      textBlock(1, 'Answer.') +
      finish('end_turn') +
      sse({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'late' } });
    expect(choices(run(parseSse(wire)).chunks).map(([c]) => c.delta)).toEqual([{ role: 'assistant', content: '' }, { content: 'Answer.' }, {}]);
  });

  it('streams the JSON-response tool input as content and finishes with stop', () => {
    const wire = start() + toolBlock(0, 'toolu_J', 'json_response', '', '{"answer":', '42}') + finish('tool_use');
    const { chunks } = run(parseSse(wire), { jsonToolName: 'json_response' });
    expect(choices(chunks).map(([c]) => [c.delta, c.finish_reason])).toEqual([
      [{ role: 'assistant', content: '' }, null],
      [{ content: '{"answer":' }, null],
      [{ content: '42}' }, null],
      [{}, 'stop'],
    ]);
  });
});

describe('mapStreamEvent failures', () => {
  it('turns event: error into a retryable stream ProviderError naming the Anthropic error type', () => {
    const events = parseSse(start() + 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n');
    const error = (() => {
      try {
        run(events);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'stream', retryable: true, upstreamStatus: 529, status: 503, type: 'server_error' });
    expect((error as ProviderError).message).toContain('overloaded_error: Overloaded');
  });

  it('fails with a stream ProviderError when the body ends before message_stop', () => {
    const events = parseSse(start() + textBlock(0, 'Hel'));
    expect(() => run(events)).toThrow(ProviderError);
    expect(() => run(events)).toThrow(/ended before message_stop/);
    try {
      run(events);
    } catch (error) {
      expect(error).toMatchObject({ kind: 'stream', retryable: true });
    }
  });

  it('fails on an event that is not JSON, and on content before message_start', () => {
    expect(() => run([{ event: 'content_block_delta', data: '{oops', id: undefined }])).toThrow(/not an Anthropic event/);
    expect(() => run(parseSse(textBlock(0, 'x')))).toThrow(/before message_start/);
  });

  it('does not change the state it is given', () => {
    const state = createStreamState({ provider: 'anthropic', includeUsage: false, created: CREATED, jsonToolName: null });
    const frozen = JSON.stringify(state);
    const started = mapStreamEvent(parseSse(start())[0], state).state;
    mapStreamEvent(parseSse(toolBlock(0, 'toolu_A', 'f', '{}'))[0], started);
    expect(JSON.stringify(state)).toBe(frozen);
    expect(JSON.stringify(started)).toBe(JSON.stringify(mapStreamEvent(parseSse(start())[0], state).state));
  });
});
