import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../../core/errors/provider-error.ts';
import { createPassThroughState, finishPassThrough, mapPassThroughChunk, removeNullUsage } from '../../../core/providers/openai-compatible/map-stream-chunk.ts';
import { quirksFor } from '../../../core/providers/openai-compatible/quirks.ts';
import { GROQ_TOOL_STREAM, GROQ_USAGE_CHUNK, OPENAI_TEXT_STREAM, TOGETHER_CHAT_STREAM } from './wire-fixtures.ts';

function run(provider: string, chunks: string[], includeUsage: boolean, topLogprobs = 0) {
  const state = createPassThroughState({ includeUsage, object: 'chat.completion.chunk', provider, quirks: quirksFor(provider), topLogprobs });
  const out = chunks.flatMap((data) => mapPassThroughChunk(data, state));
  out.push(...finishPassThrough(state));
  return { out, parsed: out.map((o) => JSON.parse(o) as Record<string, unknown>), state };
}

describe('OpenAI streams stay a pass-through', () => {
  it('forwards every chunk byte for byte when the client asked for usage, then the usage chunk', () => {
    const { out, parsed, state } = run('openai', OPENAI_TEXT_STREAM, true);
    expect(out.slice(0, 3)).toEqual(OPENAI_TEXT_STREAM.slice(0, 3));
    expect(parsed[3]).toMatchObject({ id: 'chatcmpl-D8Z5', object: 'chat.completion.chunk', created: 1770933892, choices: [], usage: { prompt_tokens: 16, completion_tokens: 300, total_tokens: 316 } });
    expect(out).toHaveLength(4);
    expect(state.usage).toMatchObject({ prompt_tokens: 16, completion_tokens: 300, total_tokens: 316 });
  });

  it('without include_usage, cuts "usage":null out of the text (no re-serialisation) and sends no usage chunk', () => {
    const { out, state } = run('openai', OPENAI_TEXT_STREAM, false);
    expect(out).toEqual(OPENAI_TEXT_STREAM.slice(0, 3).map((c) => c.replace(',"usage":null', '')));
    expect(state.usage?.total_tokens).toBe(316);
  });

  it('removeNullUsage refuses anything it cannot prove safe', () => {
    expect(removeNullUsage('{"a":1,"usage":null}')).toBe('{"a":1}');
    expect(removeNullUsage('{"usage":null,"a":1}')).toBe('{"a":1}');
    expect(removeNullUsage('{"usage":null}')).toBeUndefined();
    expect(removeNullUsage('{"a":"usage","usage":null}')).toBeUndefined();
    expect(removeNullUsage('{"x":{"usage":null},"usage":null}')).toBeUndefined();
    expect(removeNullUsage('{"a":1, "usage": null}')).toBeUndefined();
    expect(removeNullUsage('{"a":"say \\"usage\\":null"}')).toBeUndefined();
  });
});

describe('Groq streams (reference §4.4)', () => {
  it('reads usage from the finish chunk without stream_options, and shows it only as a final usage chunk', () => {
    const { parsed, state } = run('groq', GROQ_TOOL_STREAM, true);
    expect(state.usage).toMatchObject({ prompt_tokens: 210, completion_tokens: 15, total_tokens: 225 });
    expect(parsed).toHaveLength(4);
    expect(parsed.slice(0, 3).every((c) => c.usage === null)).toBe(true);
    expect(parsed[3]).toMatchObject({ id: 'chatcmpl-b610d559', choices: [], usage: { prompt_tokens: 210, completion_tokens: 15, total_tokens: 225 } });
    // x_groq stays (request id for Groq support), without its copy of the usage.
    expect(parsed[0].x_groq).toEqual({ id: 'req_01kh52nj5yfcat8hrmvrk2j2hj', seed: 689520654 });
    expect(parsed[2].x_groq).toEqual({ id: 'req_01kh52nj5yfcat8hrmvrk2j2hj' });
    expect((parsed[2].choices as { finish_reason: string }[])[0].finish_reason).toBe('tool_calls');
  });

  it('without include_usage shows no usage anywhere but still records it', () => {
    const { parsed, state } = run('groq', GROQ_TOOL_STREAM, false);
    expect(parsed).toHaveLength(3);
    expect(parsed.every((c) => !('usage' in c) && !(c.x_groq as { usage?: unknown } | undefined)?.usage)).toBe(true);
    expect(state.usage?.total_tokens).toBe(225);
  });

  it('with include_usage sent upstream, swallows Groq’s own usage chunk and sends exactly one', () => {
    const { parsed, state } = run('groq', [...GROQ_TOOL_STREAM, GROQ_USAGE_CHUNK], true);
    expect(parsed.filter((c) => Array.isArray(c.choices) && (c.choices as unknown[]).length === 0)).toHaveLength(1);
    expect(state.usage).toEqual({ prompt_tokens: 210, completion_tokens: 15, total_tokens: 225 });
  });

  it('ends the stream with an error when Groq sets x_groq.error', () => {
    const state = createPassThroughState({ includeUsage: false, object: 'chat.completion.chunk', provider: 'groq' });
    const data = '{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":null}],"x_groq":{"id":"req_1","error":"stream stopped: over capacity"}}';
    expect(() => mapPassThroughChunk(data, state)).toThrow(ProviderError);
    expect(() => mapPassThroughChunk(data, state)).toThrow(/over capacity/);
  });

  it("turns OpenAI's mid-stream error event into a stream ProviderError", () => {
    const state = createPassThroughState({ includeUsage: false, object: 'chat.completion.chunk', provider: 'openai' });
    try {
      mapPassThroughChunk('{"error":{"message":"boom","type":"server_error","param":null,"code":null}}', state);
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ kind: 'stream', retryable: true, type: 'server_error' });
    }
  });
});

describe('Together streams (reference §5.2)', () => {
  it('maps eos to stop, reads usage from the final chunk, and shows it only when asked', () => {
    const asked = run('together', TOGETHER_CHAT_STREAM, true);
    expect(asked.parsed).toHaveLength(3);
    expect((asked.parsed[1].choices as { finish_reason: string }[])[0].finish_reason).toBe('stop');
    expect(asked.parsed[1].usage).toBeNull();
    expect(asked.parsed[2]).toMatchObject({ id: '8f1c2d3e4a5b6c7d', choices: [], usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 } });
    const plain = run('together', TOGETHER_CHAT_STREAM, false);
    expect(plain.parsed).toHaveLength(2);
    expect(plain.parsed.every((c) => !('usage' in c))).toBe(true);
    expect(plain.state.usage?.total_tokens).toBe(21);
  });

  it('turns the per-chunk logprob number into OpenAI logprobs.content', () => {
    const chunk = TOGETHER_CHAT_STREAM[0].replace('"logprobs":null', '"logprobs":-0.25');
    const { parsed } = run('together', [chunk], false, 2);
    expect((parsed[0].choices as { logprobs: unknown }[])[0].logprobs).toEqual({
      content: [{ token: 'Hello', logprob: -0.25, bytes: [72, 101, 108, 108, 111], top_logprobs: [{ token: 'Hello', logprob: -0.25, bytes: [72, 101, 108, 108, 111] }] }],
      refusal: null,
    });
  });
});
