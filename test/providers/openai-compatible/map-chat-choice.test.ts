import { describe, expect, it } from 'vitest';
import { mapChatChoices, mapFinishReason } from '../../../core/providers/openai-compatible/map-chat-choice.ts';
import { mapTogetherChatLogprobs, mapTogetherChunkLogprob } from '../../../core/providers/openai-compatible/map-chat-logprobs.ts';
import { quirksFor } from '../../../core/providers/openai-compatible/quirks.ts';
import { GROQ_TEXT_JSON, GROQ_TOOL_CALL_JSON, TOGETHER_CHAT_LOGPROBS_JSON } from './wire-fixtures.ts';

const together = quirksFor('together');

describe('chat answers', () => {
  it('leaves OpenAI and user endpoints\' answers untouched', () => {
    for (const provider of ['openai', 'my-vllm']) {
      const parsed = JSON.parse(GROQ_TEXT_JSON) as { choices: unknown[] };
      expect(mapChatChoices(parsed, quirksFor(provider), 0)).toBe(false);
      expect(JSON.stringify(parsed)).toBe(GROQ_TEXT_JSON);
    }
  });

  it("brings Groq's answer into OpenAI's spec: message.refusal null, service_tier on_demand as default; x_groq and Groq's usage extras stay (clients ignore unknown fields)", () => {
    const parsed = JSON.parse(GROQ_TEXT_JSON) as { choices: { message: Record<string, unknown> }[]; service_tier: string };
    expect(mapChatChoices(parsed, quirksFor('groq'), 0)).toBe(true);
    const expected = JSON.parse(GROQ_TEXT_JSON) as typeof parsed;
    expected.choices[0].message.refusal = null;
    expected.service_tier = 'default';
    expect(parsed).toEqual(expected);
  });

  it('maps a tier OpenAI has a word for and leaves out one it has not', () => {
    const groq = quirksFor('groq');
    const answer = (tier: string) => ({ service_tier: tier, choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'hi', refusal: null } }] });
    for (const [tier, mapped] of [['on_demand', 'default'], ['performance', 'priority'], ['flex', 'flex'], ['auto', 'auto']] as const) {
      const value = answer(tier);
      expect(mapChatChoices(value, groq, 0)).toBe(tier !== mapped);
      expect(value.service_tier).toBe(mapped);
    }
    const unknown: Record<string, unknown> = answer('turbo');
    expect(mapChatChoices(unknown, groq, 0)).toBe(true);
    expect(unknown).not.toHaveProperty('service_tier');
  });

  it("maps Together's eos to stop and its logprobs to OpenAI's content[] (§5.2, §7.4)", () => {
    const parsed = JSON.parse(TOGETHER_CHAT_LOGPROBS_JSON) as { choices: { finish_reason: string; logprobs: unknown; message: object }[] };
    expect(mapChatChoices(parsed, together, 2)).toBe(true);
    expect(parsed.choices[0].finish_reason).toBe('stop');
    // Together's empty tool_calls list is removed: OpenAI leaves the field out when there are none.
    expect(parsed.choices[0].message).toEqual({ role: 'assistant', content: 'New York', refusal: null });
    expect(parsed.choices[0].logprobs).toEqual({
      content: [
        {
          token: 'New',
          logprob: -0.39648438,
          bytes: [78, 101, 119],
          top_logprobs: [
            { token: 'New', logprob: -0.39648438, bytes: [78, 101, 119] },
            { token: 'The', logprob: -1.5, bytes: [84, 104, 101] },
          ],
        },
        { token: ' York', logprob: -2.026558e-6, bytes: [32, 89, 111, 114, 107], top_logprobs: [{ token: ' York', logprob: -2.026558e-6, bytes: [32, 89, 111, 114, 107] }] },
      ],
      refusal: null,
    });
  });

  it('trims alternatives to what the client asked for: none for logprobs:true alone', () => {
    const mapped = mapTogetherChatLogprobs({ tokens: ['a', 'b'], token_logprobs: [-1, null], top_logprobs: [{ a: -1, c: -2 }, { b: -3 }] }, 0);
    expect(mapped.content.map((c) => c.top_logprobs)).toEqual([[], []]);
    expect(mapped.content[1].logprob).toBe(-9999);
    expect(mapTogetherChatLogprobs({ tokens: ['a'], token_logprobs: [-1], top_logprobs: [{ c: -2, a: -1, d: -3 }] }, 1).content[0].top_logprobs.map((t) => t.token)).toEqual(['a']);
  });

  it('encodes token bytes as UTF-8, as OpenAI does', () => {
    expect(mapTogetherChunkLogprob(-0.5, 'é', 1)).toEqual({
      content: [{ token: 'é', logprob: -0.5, bytes: [195, 169], top_logprobs: [{ token: 'é', logprob: -0.5, bytes: [195, 169] }] }],
      refusal: null,
    });
  });

  it("gives Groq's tool-call message the content: null and refusal: null OpenAI always sends, and nothing else", () => {
    const parsed = JSON.parse(GROQ_TOOL_CALL_JSON) as { choices: { message: Record<string, unknown> }[] };
    expect(mapChatChoices(parsed, quirksFor('groq'), 0)).toBe(true);
    const expected = JSON.parse(GROQ_TOOL_CALL_JSON) as { choices: { message: Record<string, unknown> }[] };
    expected.choices[0].message.content = null;
    expected.choices[0].message.refusal = null;
    (expected as Record<string, unknown>).service_tier = 'default';
    expect(parsed).toEqual(expected);
    // OpenAI's own answers are never touched.
    expect(mapChatChoices(JSON.parse(GROQ_TOOL_CALL_JSON) as object, quirksFor('openai'), 0)).toBe(false);
  });

  it("removes the stream's index from Together's complete tool calls, keeps it in stream deltas", () => {
    const call = { index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } };
    const answer = { choices: [{ index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [{ ...call }] } }] };
    expect(mapChatChoices(answer, together, 0)).toBe(true);
    expect(answer.choices[0].message.tool_calls).toEqual([{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }]);
    const chunk = { choices: [{ index: 0, finish_reason: null, delta: { tool_calls: [{ ...call }] } }] };
    expect(mapChatChoices(chunk, together, 0)).toBe(false);
    expect(chunk.choices[0].delta.tool_calls[0]).toEqual(call);
  });

  it('maps only the finish reasons a provider lists', () => {
    expect(mapFinishReason('eos', together)).toBe('stop');
    expect(mapFinishReason('length', together)).toBe('length');
    expect(mapFinishReason('constructor', together)).toBe('constructor');
    expect(mapFinishReason('eos', quirksFor('openai'))).toBe('eos');
  });

  it('leaves a Together answer already in OpenAI\'s shape unchanged, so its bytes are forwarded', () => {
    const parsed = { choices: [{ index: 0, finish_reason: 'tool_calls', logprobs: null, message: { content: null, refusal: null } }] };
    expect(mapChatChoices(parsed, together, 0)).toBe(false);
  });
});
