import { describe, expect, it } from 'vitest';
import type { MessageResponse } from '../../../core/providers/anthropic/anthropic-wire-types.ts';
import { mapFinishReason, mapMessageResponse, mapUsage } from './through-neutral.ts';

const context = { created: 1_760_000_000, jsonToolName: null };

/** Recorded response quoted in the reference, 2.3 (vercel/ai anthropic-text.json, Sonnet 4.5). */
const RECORDED_TEXT: MessageResponse = {
  model: 'claude-sonnet-4-5-20250929',
  id: 'msg_01VdEjxAP5ahtHKrrRdNBteQ',
  type: 'message',
  role: 'assistant',
  content: [{ type: 'text', text: "Hello! I'm doing well, thanks for asking." }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: {
    input_tokens: 12,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    output_tokens: 29,
    service_tier: 'standard',
    inference_geo: 'not_available',
  } as MessageResponse['usage'],
};

describe('mapMessageResponse', () => {
  it('maps the recorded text response to a chat.completion', () => {
    expect(mapMessageResponse(RECORDED_TEXT, context)).toEqual({
      id: 'msg_01VdEjxAP5ahtHKrrRdNBteQ',
      object: 'chat.completion',
      created: 1_760_000_000,
      model: 'claude-sonnet-4-5-20250929',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: "Hello! I'm doing well, thanks for asking.", refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 12, completion_tokens: 29, total_tokens: 41, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } },
    });
  });

  it('maps the tool-use response: text as content, tool_use as tool_calls with the input serialized', () => {
    const message: MessageResponse = {
      ...RECORDED_TEXT,
      content: [
        { type: 'text', text: "I'll check." },
        { type: 'tool_use', id: 'toolu_01D7FLrfh4GYq7yT1ULFeyMV', name: 'get_weather', input: { city: 'Paris' }, caller: { type: 'direct' } } as MessageResponse['content'][number],
      ],
      stop_reason: 'tool_use',
    };
    expect(mapMessageResponse(message, context).choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: "I'll check.",
        refusal: null,
        tool_calls: [{ id: 'toolu_01D7FLrfh4GYq7yT1ULFeyMV', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      logprobs: null,
      finish_reason: 'tool_calls',
    });
  });

  it('gives content null when there is only a tool call, and {} arguments for a no-argument tool', () => {
    const message: MessageResponse = { ...RECORDED_TEXT, content: [{ type: 'tool_use', id: 'toolu_1', name: 'now', input: {} }], stop_reason: 'tool_use' };
    expect(mapMessageResponse(message, context).choices[0].message).toEqual({
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'now', arguments: '{}' } }],
    });
  });

  it('drops thinking and redacted thinking blocks and concatenates text blocks', () => {
    const message: MessageResponse = {
      ...RECORDED_TEXT,
      content: [
        { type: 'thinking', thinking: 'Let me think.', signature: 'EqQB' } as MessageResponse['content'][number],
        { type: 'redacted_thinking', data: 'xyz' } as MessageResponse['content'][number],
        { type: 'text', text: 'Part one. ', citations: null } as MessageResponse['content'][number],
        { type: 'text', text: 'Part two.' },
      ],
    };
    expect(mapMessageResponse(message, context).choices[0].message.content).toBe('Part one. Part two.');
  });

  it('maps the recorded refusal (empty content) to content_filter', () => {
    const message = {
      ...RECORDED_TEXT,
      content: [],
      stop_reason: 'refusal',
      stop_details: { type: 'refusal', category: 'cyber', explanation: '…', recommended_model: '…' },
    } as MessageResponse;
    // No text at all: empty content, as for every upstream's empty answer (null is kept for content beside tool calls).
    expect(mapMessageResponse(message, context).choices[0]).toMatchObject({ message: { content: '' }, finish_reason: 'content_filter' });
  });

  it('returns the JSON-response tool input as content with finish_reason stop', () => {
    const message: MessageResponse = { ...RECORDED_TEXT, content: [{ type: 'tool_use', id: 'toolu_J', name: 'json_response', input: { answer: 42 } }], stop_reason: 'tool_use' };
    expect(mapMessageResponse(message, { ...context, jsonToolName: 'json_response' }).choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: '{"answer":42}', refusal: null },
      logprobs: null,
      finish_reason: 'stop',
    });
  });
});

describe('mapFinishReason (reference 7.4)', () => {
  it.each([
    ['end_turn', true, 'stop'],
    ['stop_sequence', false, 'stop'],
    ['max_tokens', false, 'length'],
    ['model_context_window_exceeded', false, 'length'],
    ['tool_use', true, 'tool_calls'],
    ['tool_use', false, 'stop'],
    ['pause_turn', false, 'stop'],
    ['refusal', false, 'content_filter'],
    [null, false, 'stop'],
    ['something_new', false, 'stop'],
  ] as const)('%s (tool calls: %s) -> %s', (stopReason, hasToolCalls, expected) => {
    expect(mapFinishReason(stopReason, hasToolCalls)).toBe(expected);
  });
});

describe('mapUsage (reference 7.5)', () => {
  it('adds cache writes and reads to the prompt and reports reads as cached_tokens', () => {
    expect(mapUsage({ input_tokens: 50, cache_creation_input_tokens: 1000, cache_read_input_tokens: 3000, output_tokens: 200 })).toEqual({
      prompt_tokens: 4050,
      completion_tokens: 200,
      total_tokens: 4250,
      prompt_tokens_details: { cached_tokens: 3000 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it('reports thinking tokens as reasoning_tokens when Anthropic gives them, and treats null counts as 0', () => {
    expect(mapUsage({ input_tokens: 10, cache_creation_input_tokens: null, cache_read_input_tokens: null, output_tokens: 90, output_tokens_details: { thinking_tokens: 60 } })).toEqual({
      prompt_tokens: 10,
      completion_tokens: 90,
      total_tokens: 100,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 60 },
    });
  });

  it('is all zeros without usage', () => {
    expect(mapUsage(undefined)).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } });
  });
});
