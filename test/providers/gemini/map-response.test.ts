import { describe, expect, it } from 'vitest';
import type { GeminiResponse } from '../../../core/providers/gemini/gemini-wire.ts';
import { mapFinishReason } from '../../../core/providers/gemini/map-finish-reason.ts';
import { mapResponse, type AnswerContext } from './through-neutral.ts';
import { mapUsage } from '../../../core/providers/gemini/map-usage.ts';

function context(overrides: Partial<AnswerContext> = {}): AnswerContext {
  let n = 0;
  return { id: 'chatcmpl-test', created: 1700000000, model: 'gemini-2.5-flash', nextToolCallId: () => `call_${++n}`, maxToolCalls: Infinity, ...overrides };
}

/** Reference 3.3. */
const TEXT_RESPONSE: GeminiResponse = {
  candidates: [
    {
      content: { role: 'model', parts: [{ text: 'It is sunny in Paris.' }] },
      finishReason: 'STOP',
      index: 0,
    },
  ],
  usageMetadata: { promptTokenCount: 29, candidatesTokenCount: 15, thoughtsTokenCount: 45, totalTokenCount: 89 },
  modelVersion: 'gemini-2.5-flash',
  responseId: 'b36LacjwM668nsEP2tbsgQQ',
};

/** Recorded google-tool-call.json shape: a functionCall part, finishReason STOP. */
const TOOL_RESPONSE: GeminiResponse = {
  candidates: [
    {
      content: { role: 'model', parts: [{ functionCall: { name: 'weather', args: { location: 'San Francisco' } }, thoughtSignature: 'EqUCCqICAb4=' }] },
      finishReason: 'STOP',
      index: 0,
    },
  ],
  usageMetadata: { promptTokenCount: 29, candidatesTokenCount: 15, thoughtsTokenCount: 45, totalTokenCount: 89 },
  modelVersion: 'gemini-3-pro-preview',
};

describe('mapResponse', () => {
  it('maps the reference text answer to a chat.completion', () => {
    expect(mapResponse(TEXT_RESPONSE, context())).toEqual({
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 1700000000,
      model: 'gemini-2.5-flash',
      choices: [{ index: 0, message: { role: 'assistant', content: 'It is sunny in Paris.', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: {
        prompt_tokens: 29,
        completion_tokens: 60,
        total_tokens: 89,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 45 },
      },
    });
  });

  it('turns function calls into tool_calls with synthesized ids, null content and finish tool_calls', () => {
    const completion = mapResponse(TOOL_RESPONSE, context());
    expect(completion.model).toBe('gemini-3-pro-preview');
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"location":"San Francisco"}' } }],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ]);
  });

  it('keeps Gemini’s own call id, skips thought parts, and keeps text beside calls', () => {
    const completion = mapResponse(
      {
        candidates: [
          {
            content: {
              parts: [
                { text: 'Let me think about tools...', thought: true },
                { text: 'Looking it up.' },
                { functionCall: { id: 'fc-7', name: 'lookup', args: { q: 'x' } } },
                { functionCall: { name: 'noargs' } },
              ],
            },
            finishReason: 'STOP',
          },
        ],
      },
      context(),
    );
    expect(completion.choices[0].message).toEqual({
      role: 'assistant',
      content: 'Looking it up.',
      refusal: null,
      tool_calls: [
        { id: 'fc-7', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
        { id: 'call_1', type: 'function', function: { name: 'noargs', arguments: '{}' } },
      ],
    });
    expect(completion.model).toBe('gemini-2.5-flash');
    expect(completion.usage).toBeUndefined();
  });

  it('keeps only the first call when the caller sent parallel_tool_calls: false', () => {
    const response: GeminiResponse = {
      candidates: [{ content: { parts: [{ functionCall: { name: 'a', args: {} } }, { functionCall: { name: 'b', args: {} } }] }, finishReason: 'STOP' }],
    };
    const message = mapResponse(response, context({ maxToolCalls: 1 })).choices[0].message;
    expect(message.tool_calls?.map((c) => c.function.name)).toEqual(['a']);
  });

  it('gives one choice per candidate, by candidate index', () => {
    const completion = mapResponse(
      {
        candidates: [
          { content: { parts: [{ text: 'second' }] }, finishReason: 'MAX_TOKENS', index: 1 },
          { content: { parts: [{ text: 'first' }] }, finishReason: 'STOP', index: 0 },
        ],
      },
      context(),
    );
    expect(completion.choices.map((c) => [c.index, c.message.content, c.finish_reason])).toEqual([
      [0, 'first', 'stop'],
      [1, 'second', 'length'],
    ]);
  });

  it('answers a blocked prompt with one empty content_filter choice', () => {
    const completion = mapResponse(
      { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 }, modelVersion: 'gemini-3.7-flash' },
      context(),
    );
    expect(completion.choices).toEqual([{ index: 0, message: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: 'content_filter' }]);
    expect(completion.usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 0, total_tokens: 9 });
  });

  it('maps a candidate blocked mid-answer (SAFETY, no content) to content_filter', () => {
    const completion = mapResponse({ candidates: [{ finishReason: 'SAFETY', index: 0 }] }, context());
    expect(completion.choices[0]).toMatchObject({ message: { content: '' }, finish_reason: 'content_filter' });
  });
});

describe('mapFinishReason (reference 7.4)', () => {
  const cases: [string | undefined, boolean, string][] = [
    ['STOP', false, 'stop'],
    ['STOP', true, 'tool-calls'],
    ['MAX_TOKENS', false, 'length'],
    ['MAX_TOKENS', true, 'length'],
    ['SAFETY', false, 'content-filter'],
    ['BLOCKLIST', false, 'content-filter'],
    ['PROHIBITED_CONTENT', false, 'content-filter'],
    ['SPII', false, 'content-filter'],
    ['IMAGE_SAFETY', false, 'content-filter'],
    ['IMAGE_PROHIBITED_CONTENT', false, 'content-filter'],
    ['LANGUAGE', false, 'content-filter'],
    ['RECITATION', false, 'content-filter'],
    ['MALFORMED_FUNCTION_CALL', false, 'stop'],
    ['UNEXPECTED_TOOL_CALL', false, 'stop'],
    ['TOO_MANY_TOOL_CALLS', false, 'stop'],
    ['OTHER', false, 'stop'],
    ['FINISH_REASON_UNSPECIFIED', false, 'stop'],
    [undefined, false, 'stop'],
    ['SOMETHING_NEW', false, 'stop'],
  ];
  it.each(cases)('%s (function call: %s) -> %s', (reason, hasCall, expected) => {
    expect(mapFinishReason(reason, hasCall)).toBe(expected);
  });
});

describe('mapUsage (reference 7.5)', () => {
  it('adds thoughts to the output and tool-use prompt tokens to the input; cached and thought tokens are parts of them', () => {
    expect(
      mapUsage({
        promptTokenCount: 100,
        toolUsePromptTokenCount: 20,
        cachedContentTokenCount: 64,
        candidatesTokenCount: 30,
        thoughtsTokenCount: 50,
        totalTokenCount: 200,
      }),
    ).toEqual({ inputTokens: 120, outputTokens: 80, cacheReadTokens: 64, cacheWriteTokens: 0, reasoningTokens: 50 });
  });

  it('reaches an OpenAI answer as prompt/completion tokens with both details', () => {
    const completion = mapResponse(
      { candidates: [{ content: { parts: [{ text: 'hi' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 3, cachedContentTokenCount: 2 } },
      { id: 'chatcmpl-u', created: 1, model: 'gemini-2.5-flash', nextToolCallId: () => 'call_1', maxToolCalls: Infinity },
    );
    expect(completion.usage).toEqual({ prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, prompt_tokens_details: { cached_tokens: 2 }, completion_tokens_details: { reasoning_tokens: 0 } });
  });
});
