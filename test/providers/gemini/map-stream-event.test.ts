import { describe, expect, it } from 'vitest';
import type { GeminiResponse } from '../../../core/providers/gemini/gemini-wire.ts';
import { createStreamState, finishStream, mapStreamEvent, type AnswerContext, type ChatCompletionChunk, type StreamState } from './through-neutral.ts';

function context(overrides: Partial<AnswerContext> = {}): AnswerContext {
  let n = 0;
  return { id: 'chatcmpl-s', created: 1700000000, model: 'gemini-2.5-flash', nextToolCallId: () => `call_${++n}`, maxToolCalls: Infinity, ...overrides };
}

/** Runs events through the mapper the way the adapter does; returns every chunk and the end state. */
function run(events: GeminiResponse[], state: StreamState): { chunks: ChatCompletionChunk[]; complete: boolean; state: StreamState } {
  const chunks: ChatCompletionChunk[] = [];
  for (const event of events) {
    const out = mapStreamEvent(event, state);
    chunks.push(...out.chunks);
    state = out.state;
  }
  const end = finishStream(state);
  return { chunks: [...chunks, ...end.chunks], complete: end.complete, state };
}

/** Reference 3.4, recorded google-text.chunks.txt (gemini-3-pro-preview), as the SSE data lines. */
const TEXT_EVENTS: GeminiResponse[] = [
  '{"candidates":[{"content":{"parts":[{"text":"There are **3**"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":5,"totalTokenCount":199,"promptTokensDetails":[{"modality":"TEXT","tokenCount":9}],"thoughtsTokenCount":185},"modelVersion":"gemini-3-pro-preview","responseId":"bH6LaZW8Fp_3nsEPqtaSwQ4"}',
  '{"candidates":[{"content":{"parts":[{"text":" \\"r\\"s in strawberry."}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":23,"totalTokenCount":217,"promptTokensDetails":[{"modality":"TEXT","tokenCount":9}],"thoughtsTokenCount":185},"modelVersion":"gemini-3-pro-preview","responseId":"bH6LaZW8Fp_3nsEPqtaSwQ4"}',
  '{"candidates":[{"content":{"parts":[{"text":"","thoughtSignature":"EqsFCqgF..."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":23,"totalTokenCount":217,"promptTokensDetails":[{"modality":"TEXT","tokenCount":9}],"thoughtsTokenCount":185},"modelVersion":"gemini-3-pro-preview","responseId":"bH6LaZW8Fp_3nsEPqtaSwQ4"}',
].map((line) => JSON.parse(line) as GeminiResponse);

/** Recorded google-tool-call.chunks.txt: the call whole in one event, then an empty STOP event. */
const TOOL_EVENTS: GeminiResponse[] = [
  '{"candidates":[{"content":{"parts":[{"functionCall":{"name":"weather","args":{"location":"San Francisco"}},"thoughtSignature":"EqUCCqICAb4="}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":29,"candidatesTokenCount":15,"totalTokenCount":89,"thoughtsTokenCount":45},"modelVersion":"gemini-3-pro-preview","responseId":"b36LacjwM668nsEP2tbsgQQ"}',
  '{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":29,"candidatesTokenCount":15,"totalTokenCount":89,"thoughtsTokenCount":45},"modelVersion":"gemini-3-pro-preview","responseId":"b36LacjwM668nsEP2tbsgQQ"}',
].map((line) => JSON.parse(line) as GeminiResponse);

const base = { id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1700000000, model: 'gemini-3-pro-preview' } as const;
const choice = (delta: object, finish: string | null = null, index = 0) => ({ index, delta, logprobs: null, finish_reason: finish });

describe('mapStreamEvent: text stream (reference 3.4)', () => {
  it('emits the role, each text delta and the finish, with no usage key when usage was not asked', () => {
    const { chunks, complete } = run(TEXT_EVENTS, createStreamState(context(), false));
    expect(complete).toBe(true);
    expect(chunks).toEqual([
      { ...base, choices: [choice({ role: 'assistant', content: '' })] },
      { ...base, choices: [choice({ content: 'There are **3**' })] },
      { ...base, choices: [choice({ content: ' "r"s in strawberry.' })] },
      { ...base, choices: [choice({}, 'stop')] },
    ]);
    for (const chunk of chunks) expect('usage' in chunk).toBe(false);
  });

  it('with include_usage: usage null on every chunk, then one usage chunk from the last cumulative count', () => {
    const { chunks } = run(TEXT_EVENTS, createStreamState(context(), true));
    expect(chunks.slice(0, -1).every((c) => c.usage === null && c.choices.length === 1)).toBe(true);
    expect(chunks.at(-1)).toEqual({
      ...base,
      choices: [],
      usage: {
        prompt_tokens: 9,
        completion_tokens: 208,
        total_tokens: 217,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 185 },
      },
    });
    expect(chunks).toHaveLength(5);
  });
});

describe('mapStreamEvent: function-call stream', () => {
  it('sends each call as its start (id, name) and its whole arguments, and finishes with tool_calls', () => {
    const { chunks, complete, state } = run(TOOL_EVENTS, createStreamState(context(), false));
    expect(complete).toBe(true);
    expect(chunks).toEqual([
      { ...base, choices: [choice({ role: 'assistant', content: '' })] },
      { ...base, choices: [choice({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'weather', arguments: '' } }] })] },
      { ...base, choices: [choice({ tool_calls: [{ index: 0, function: { arguments: '{"location":"San Francisco"}' } }] })] },
      { ...base, choices: [choice({}, 'tool_calls')] },
    ]);
    expect(state.answer.usage).toMatchObject({ inputTokens: 29, outputTokens: 60, reasoningTokens: 45 });
  });

  it('numbers parallel calls 0, 1 per choice, keeps Gemini ids, text before a call comes first', () => {
    const { chunks } = run(
      [
        {
          candidates: [
            {
              content: { parts: [{ text: 'Checking ' }, { text: 'both.' }, { functionCall: { name: 'a', args: {} } }, { functionCall: { id: 'g-2', name: 'b', args: { x: 1 } } }] },
              finishReason: 'STOP',
            },
          ],
        },
      ],
      createStreamState(context(), false),
    );
    expect(chunks.map((c) => c.choices[0].delta)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'Checking ' },
      { content: 'both.' },
      { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'a', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{}' } }] },
      { tool_calls: [{ index: 1, id: 'g-2', type: 'function', function: { name: 'b', arguments: '' } }] },
      { tool_calls: [{ index: 1, function: { arguments: '{"x":1}' } }] },
      {},
    ]);
    expect(chunks.at(-1)?.choices[0].finish_reason).toBe('tool_calls');
  });

  it('sends only the first call when parallel tool calls are off', () => {
    const { chunks } = run(
      [{ candidates: [{ content: { parts: [{ functionCall: { name: 'a' } }, { functionCall: { name: 'b' } }] }, finishReason: 'STOP' }] }],
      createStreamState(context({ maxToolCalls: 1 }), false),
    );
    expect(chunks.filter((c) => c.choices[0].delta.tool_calls?.[0].id).map((c) => c.choices[0].delta.tool_calls![0].function.name)).toEqual(['a']);
  });
});

describe('mapStreamEvent: endings', () => {
  it('a stream that ends without any finishReason is incomplete', () => {
    const { complete } = run(TEXT_EVENTS.slice(0, 2), createStreamState(context(), true));
    expect(complete).toBe(false);
    expect(finishStream(createStreamState(context(), true))).toEqual({ chunks: [], complete: false });
  });

  it('a prompt blocked before output (no candidates, blockReason) ends as content_filter', () => {
    const blocked = JSON.parse(
      '{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9,"promptTokensDetails":[{"modality":"TEXT","tokenCount":9}],"serviceTier":"standard"},"modelVersion":"gemini-3.7-flash","responseId":"EXCPatOAKMrQjMcPteHVmQo"}',
    ) as GeminiResponse;
    const { chunks, complete } = run([blocked], createStreamState(context(), true));
    expect(complete).toBe(true);
    const model = 'gemini-3.7-flash';
    expect(chunks).toEqual([
      { ...base, model, choices: [choice({ role: 'assistant', content: '' })], usage: null },
      { ...base, model, choices: [choice({}, 'content_filter')], usage: null },
      { ...base, model, choices: [], usage: expect.objectContaining({ prompt_tokens: 9, completion_tokens: 0, total_tokens: 9 }) },
    ]);
  });

  it('tolerates a final event whose candidate has no content, and output blocked mid-stream', () => {
    const { chunks, complete } = run(
      [{ candidates: [{ content: { parts: [{ text: 'Once upon' }] }, index: 0 }] }, { candidates: [{ finishReason: 'SAFETY', index: 0 }] }],
      createStreamState(context(), false),
    );
    expect(complete).toBe(true);
    expect(chunks.map((c) => [c.choices[0].delta, c.choices[0].finish_reason])).toEqual([
      [{ role: 'assistant', content: '' }, null],
      [{ content: 'Once upon' }, null],
      [{}, 'content_filter'],
    ]);
    expect(chunks[0].model).toBe('gemini-2.5-flash');
  });

  it('skips thought summaries and ignores a repeated finishReason', () => {
    const { chunks } = run(
      [
        { candidates: [{ content: { parts: [{ text: 'pondering', thought: true }] } }] },
        { candidates: [{ content: { parts: [{ text: 'Answer.' }] }, finishReason: 'STOP' }] },
        { candidates: [{ finishReason: 'STOP' }] },
      ],
      createStreamState(context(), false),
    );
    expect(chunks.map((c) => c.choices[0].delta)).toEqual([{ role: 'assistant', content: '' }, { content: 'Answer.' }, {}]);
  });
});

describe('mapStreamEvent: several candidates', () => {
  it('uses the candidate index as the choice index and completes when every choice finished', () => {
    const state = createStreamState(context(), false);
    const first = mapStreamEvent(
      {
        candidates: [
          { content: { parts: [{ text: 'A' }] }, index: 0 },
          { content: { parts: [{ text: 'B' }] }, index: 1 },
        ],
      },
      state,
    );
    expect(first.chunks.map((c) => [c.choices[0].index, c.choices[0].delta])).toEqual([
      [0, { role: 'assistant', content: '' }],
      [0, { content: 'A' }],
      [1, { role: 'assistant', content: '' }],
      [1, { content: 'B' }],
    ]);
    const second = mapStreamEvent({ candidates: [{ finishReason: 'STOP', index: 0 }] }, first.state);
    expect(finishStream(second.state).complete).toBe(false);
    const third = mapStreamEvent({ candidates: [{ finishReason: 'MAX_TOKENS', index: 1 }] }, second.state);
    expect(third.chunks.map((c) => [c.choices[0].index, c.choices[0].finish_reason])).toEqual([[1, 'length']]);
    expect(finishStream(third.state).complete).toBe(true);
  });

  it('is pure: the state passed in is never changed', () => {
    const state = createStreamState(context(), true);
    const snapshot = JSON.stringify(state);
    const next = mapStreamEvent(TEXT_EVENTS[0], state).state;
    const nextSnapshot = JSON.stringify(next);
    mapStreamEvent(TEXT_EVENTS[2], next);
    expect(JSON.stringify(state)).toBe(snapshot);
    expect(JSON.stringify(next)).toBe(nextSnapshot);
  });
});
