import { describe, expect, it } from 'vitest';
import { createStreamState, endStream, mapMessageResponse, mapStreamEvent } from './through-neutral.ts';
import type { MessageResponse } from '../../../core/providers/anthropic/anthropic-wire-types.ts';

/**
 * OpenAI JSON mode on Anthropic (issue 16 item 5): the answer is the forced json_response tool's
 * input. Claude sometimes writes a sentence before calling it ("Here is the JSON:"); the client
 * asked for JSON, so its content must be the tool's input only, streamed or not.
 */

const usage = { input_tokens: 10, output_tokens: 5 };

describe('JSON mode: text before the json_response tool is not part of the content', () => {
  it('non-streaming: content is exactly the JSON', () => {
    const message = {
      id: 'msg_01',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'text', text: 'Here is the JSON you asked for:' },
        { type: 'tool_use', id: 'toolu_01', name: 'json_response', input: { answer: 42 } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage,
    } as unknown as MessageResponse;
    const completion = mapMessageResponse(message, { created: 1, jsonToolName: 'json_response' });
    expect(completion.choices[0].message.content).toBe('{"answer":42}');
    expect(JSON.parse(completion.choices[0].message.content!)).toEqual({ answer: 42 });
    expect(completion.choices[0].finish_reason).toBe('stop');
  });

  it('streaming: the concatenated content deltas are exactly the JSON', () => {
    const events = [
      { type: 'message_start', message: { id: 'msg_01', model: 'claude-sonnet-4-5', usage } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Here is ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'the JSON:' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_01', name: 'json_response', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"answer":' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: ' 42}' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } },
      { type: 'message_stop' },
    ];
    let state = createStreamState({ provider: 'anthropic', includeUsage: false, created: 1, jsonToolName: 'json_response' });
    let content = '';
    const finishes: unknown[] = [];
    for (const data of events) {
      const step = mapStreamEvent({ event: data.type, data: JSON.stringify(data) }, state);
      state = step.state;
      for (const chunk of step.chunks) {
        content += chunk.choices[0]?.delta.content ?? '';
        if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
      }
    }
    endStream(state);
    expect(content).toBe('{"answer": 42}');
    expect(finishes).toEqual(['stop']);
  });

  it('streaming without the JSON tool: text is still streamed, held only until the answer shows it is not JSON', () => {
    const events = [
      { type: 'message_start', message: { id: 'msg_01', model: 'claude-sonnet-4-5', usage } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'plain answer' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } },
      { type: 'message_stop' },
    ];
    let state = createStreamState({ provider: 'anthropic', includeUsage: false, created: 1, jsonToolName: 'json_response' });
    let content = '';
    for (const data of events) {
      const step = mapStreamEvent({ event: data.type, data: JSON.stringify(data) }, state);
      state = step.state;
      for (const chunk of step.chunks) content += chunk.choices[0]?.delta.content ?? '';
    }
    expect(content).toBe('plain answer');
  });
});
