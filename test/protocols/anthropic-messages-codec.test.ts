import { describe, expect, it } from 'vitest';
import { decodeMessagesRequest } from '../../core/protocols/anthropic-messages/decode-request.ts';
import { encodeMessage } from '../../core/protocols/anthropic-messages/encode-message.ts';
import { createEncodeState, encodeStreamPart } from '../../core/protocols/anthropic-messages/encode-stream.ts';
import { decodeAnthropicUsage, encodeAnthropicUsage } from '../../core/protocols/anthropic-messages/map-usage.ts';
import type { StreamPart } from '../../core/protocols/neutral/stream-part.ts';
import { createChunkState, decodeChatChunk, finishChunks } from '../../core/protocols/openai/decode-chat-chunk.ts';
import { encodeChatRequest } from '../../core/protocols/openai/encode-chat-request.ts';

/** Runs parts through the stream encoder; returns the events as parsed objects. */
function encode(parts: StreamPart[], estimatedInputTokens = 7): Record<string, any>[] {
  let state = createEncodeState({ id: 'msg_test', model: 'gpt-4o', signer: 'google', estimatedInputTokens });
  let text = '';
  for (const part of parts) {
    const step = encodeStreamPart(part, state);
    state = step.state;
    text += step.events;
  }
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((event) => {
      const [name, data] = event.split('\n');
      const parsed = JSON.parse(data.slice('data: '.length));
      expect(name).toBe(`event: ${parsed.type}`);
      return parsed;
    });
}

const usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 30, cacheWriteTokens: 10, reasoningTokens: 5 };

describe('encodeStreamPart (neutral parts -> Anthropic events)', () => {
  it('holds message_start until content, then one block at a time with indexes in order', () => {
    const events = encode([
      { type: 'start', id: 'chatcmpl-1', model: 'gpt-4o' },
      { type: 'reasoning-delta', text: 'hmm' },
      { type: 'text-delta', text: 'Hi' },
      { type: 'reasoning-delta', text: 'more' },
      { type: 'tool-call-start', id: 'call_1', name: 'f' },
      { type: 'tool-call-delta', argumentsDelta: '{"a":1}' },
      { type: 'finish', reason: 'tool-calls', usage },
    ]);
    expect(events.map((e) => `${e.type}${e.index ?? ''}${e.delta?.type ? `:${e.delta.type}` : ''}`)).toEqual([
      'message_start',
      'ping',
      'content_block_start0',
      'content_block_delta0:thinking_delta',
      'content_block_stop0',
      'content_block_start1',
      'content_block_delta1:text_delta',
      'content_block_stop1',
      'content_block_start2',
      'content_block_delta2:thinking_delta',
      'content_block_stop2',
      'content_block_start3',
      'content_block_delta3:input_json_delta',
      'content_block_stop3',
      'message_delta',
      'message_stop',
    ]);
    expect(events[2].content_block).toEqual({ type: 'thinking', thinking: '', signature: '' });
    expect(events[11].content_block).toEqual({ type: 'tool_use', id: 'call_1', name: 'f', input: {} });
    expect(events[14]).toMatchObject({ delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { input_tokens: 60, cache_read_input_tokens: 30, cache_creation_input_tokens: 10, output_tokens: 20 } });
  });

  it('message_start carries the upstream input count when known before output, else the estimate (never 0)', () => {
    const known = encode([{ type: 'start', usage: { ...usage, outputTokens: 0 } }, { type: 'text-delta', text: 'x' }]);
    expect(known[0].message.usage.input_tokens).toBe(60);
    const estimated = encode([{ type: 'start' }, { type: 'text-delta', text: 'x' }], 42);
    expect(estimated[0].message).toMatchObject({ id: 'msg_test', role: 'assistant', content: [], stop_reason: null, usage: { input_tokens: 42 } });
  });

  it("a failed attempt before content emits nothing; a signature closes its thinking block, sealed with the answering provider's name", () => {
    expect(encode([{ type: 'start' }])).toEqual([]);
    const events = encode([{ type: 'start' }, { type: 'reasoning-delta', text: 't' }, { type: 'reasoning-signature', signature: 'sig' }, { type: 'text-delta', text: 'a' }, { type: 'finish', reason: 'stop', usage: null }]);
    expect(events.filter((e) => e.type === 'content_block_delta').map((e) => e.delta)).toEqual([
      { type: 'thinking_delta', thinking: 't' },
      { type: 'signature_delta', signature: 'patchbay:google:sig' },
      { type: 'text_delta', text: 'a' },
    ]);
    expect(events.filter((e) => e.type === 'content_block_stop').map((e) => e.index)).toEqual([0, 1]);
  });
});

describe('encodeMessage (collected parts -> Message)', () => {
  it('builds text, thinking and tool_use blocks with parsed input, stop_reason and usage', () => {
    const message = encodeMessage(
      [
        { type: 'start', id: 'chatcmpl-9', model: 'llama' },
        { type: 'text-delta', text: 'Let me ' },
        { type: 'text-delta', text: 'check.' },
        { type: 'tool-call-start', id: 'call_1', name: 'get' },
        { type: 'tool-call-delta', argumentsDelta: '{"city":' },
        { type: 'tool-call-delta', argumentsDelta: '"Paris"}' },
        { type: 'finish', reason: 'tool-calls', usage },
      ],
      { id: 'msg_x', model: 'fallback', signer: 'groq', estimatedInputTokens: 1 },
    );
    expect(message).toEqual({
      id: 'msg_x',
      type: 'message',
      role: 'assistant',
      model: 'llama',
      content: [
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'call_1', name: 'get', input: { city: 'Paris' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 60, cache_creation_input_tokens: 10, cache_read_input_tokens: 30, output_tokens: 20 },
    });
  });
});

describe('usage mapping', () => {
  it('Anthropic usage round-trips through neutral (input counted with cache, split back out)', () => {
    const anthropic = { input_tokens: 5, cache_creation_input_tokens: 7, cache_read_input_tokens: 11, output_tokens: 3, cache_creation: { ephemeral_5m_input_tokens: 2, ephemeral_1h_input_tokens: 5 } };
    const neutral = decodeAnthropicUsage(anthropic);
    expect(neutral).toEqual({ inputTokens: 23, outputTokens: 3, cacheReadTokens: 11, cacheWriteTokens: 7, cacheWrite5mTokens: 2, cacheWrite1hTokens: 5, reasoningTokens: 0 });
    expect(encodeAnthropicUsage(neutral)).toEqual({ input_tokens: 5, cache_creation_input_tokens: 7, cache_read_input_tokens: 11, output_tokens: 3, cache_creation: { ephemeral_5m_input_tokens: 2, ephemeral_1h_input_tokens: 5 } });
  });
});

describe('decodeChatChunk (OpenAI chunks -> neutral parts)', () => {
  it('maps text, reasoning, tool calls (ids made Anthropic-valid) and holds the finish for the usage chunk', () => {
    let state = createChunkState();
    const parts: StreamPart[] = [];
    const chunks = [
      { id: 'c1', model: 'm', choices: [{ index: 0, delta: { role: 'assistant', reasoning_content: 'think' } }] },
      { id: 'c1', choices: [{ index: 0, delta: { content: 'Hi' } }] },
      { id: 'c1', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'fs.readFile:0', function: { name: 'read', arguments: '{"p"' } }] } }] },
      { id: 'c1', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: ':1}' } }] }, finish_reason: 'tool_calls' }] },
      { id: 'c1', choices: [], usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13, prompt_tokens_details: { cached_tokens: 2 } } },
    ];
    for (const chunk of chunks) {
      const step = decodeChatChunk(chunk, state);
      state = step.state;
      parts.push(...step.parts);
    }
    parts.push(...finishChunks(state));
    expect(parts).toEqual([
      { type: 'start', id: 'c1', model: 'm' },
      { type: 'reasoning-delta', text: 'think' },
      { type: 'text-delta', text: 'Hi' },
      { type: 'tool-call-start', id: 'fs_readFile_0', name: 'read' },
      { type: 'tool-call-delta', argumentsDelta: '{"p"' },
      { type: 'tool-call-delta', argumentsDelta: ':1}' },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 9, outputTokens: 4, cacheReadTokens: 2, cacheWriteTokens: 0, reasoningTokens: 0 } },
    ]);
  });
});

describe('decodeMessagesRequest: max_tokens 0', () => {
  it('is a cache pre-warm only Anthropic honours; other upstreams would answer in full, so it is refused there', () => {
    const decoded = decodeMessagesRequest({ model: 'gpt-4o', max_tokens: 0, messages: [{ role: 'user', content: 'warm' }] } as never);
    expect(decoded.nativeOnly).toEqual([{ param: 'max_tokens', what: 'pre-warm a prompt cache (max_tokens: 0)' }]);
  });
});

describe('decodeChatChunk with an upstream that repeats the tool-call id on every fragment', () => {
  it('still makes one tool_use block per call', () => {
    let state = createChunkState();
    const parts: StreamPart[] = [];
    for (const args of ['{"a"', ':1}']) {
      const step = decodeChatChunk({ id: 'c', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', function: { name: 'f', arguments: args } }] } }] }, state);
      state = step.state;
      parts.push(...step.parts);
    }
    expect(parts.filter((p) => p.type === 'tool-call-start')).toEqual([{ type: 'tool-call-start', id: 'call_1', name: 'f' }]);
  });
});

describe('decodeMessagesRequest + encodeChatRequest (Anthropic body -> neutral -> OpenAI chat)', () => {
  it('keeps system, tool calls and results in OpenAI order; lists what only Anthropic honours', () => {
    const decoded = decodeMessagesRequest({
      model: 'gpt-4o',
      max_tokens: 50,
      system: [{ type: 'text', text: 'Sys' }],
      tools: [{ name: 'get', input_schema: { type: 'object' } }, { name: 'web', type: 'web_search_20250305' }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }, { type: 'tool_use', id: 'toolu_1', name: 'get', input: { a: 1 } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'r' }] }, { type: 'text', text: 'thanks' }] },
      ],
    } as never);
    expect(decoded.nativeOnly).toEqual([{ param: 'tools[1].type', what: `use Anthropic's server tool "web_search_20250305"` }]);
    const chat = encodeChatRequest(decoded.request);
    expect(chat.messages).toEqual([
      { role: 'system', content: 'Sys' },
      { role: 'user', content: 'q' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get', arguments: '{"a":1}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'r' },
      { role: 'user', content: 'thanks' },
    ]);
    expect(chat).toMatchObject({ max_tokens: 50, tool_choice: 'required', parallel_tool_calls: false, stream: true, stream_options: { include_usage: true } });
    expect(chat.tools).toEqual([{ type: 'function', function: { name: 'get', parameters: { type: 'object' } } }]);
  });
});
