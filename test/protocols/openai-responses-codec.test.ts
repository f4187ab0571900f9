import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../core/protocols/neutral/stream-part.ts';
import { decodeResponsesRequest } from '../../core/protocols/openai-responses/decode-request.ts';
import { createResponsesEncodeState, encodeResponse, encodeResponsesPart } from '../../core/protocols/openai-responses/encode-stream.ts';
import { responsesRequestSchema } from '../../core/protocols/openai-responses/request-schema.ts';

const base = () => createResponsesEncodeState({ id: 'resp_abc', model: 'm' }, 'anthropic');
const usage = { inputTokens: 10, outputTokens: 7, cacheReadTokens: 4, cacheWriteTokens: 2, reasoningTokens: 3 };

function events(parts: StreamPart[]): Record<string, unknown>[] {
  let state = base();
  let text = '';
  for (const part of parts) {
    const step = encodeResponsesPart(part, state);
    state = step.state;
    text += step.events;
  }
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((event) => {
      const [name, data] = event.split('\n');
      const payload = JSON.parse(data.slice('data: '.length)) as Record<string, unknown>;
      expect(name).toBe(`event: ${String(payload.type)}`);
      return payload;
    });
}

describe('encode-stream (neutral parts -> Responses events)', () => {
  it('nothing is written before the first output, so a failure before it can fall back', () => {
    expect(events([{ type: 'start', id: 'x', model: 'claude' }])).toEqual([]);
  });

  it('text, then a tool call: items in order, numbered events, and response.completed lists both items with usage details', () => {
    const out = events([
      { type: 'start' },
      { type: 'text-delta', text: 'Let me check.' },
      { type: 'tool-call-start', id: 'toolu_1', name: 'get_weather' },
      { type: 'tool-call-delta', argumentsDelta: '{"city":' },
      { type: 'tool-call-delta', argumentsDelta: '"Paris"}' },
      { type: 'finish', reason: 'tool-calls', usage },
    ]);
    expect(out.map((e) => e.sequence_number)).toEqual(out.map((_, i) => i));
    expect(out.map((e) => e.type)).toEqual([
      'response.created', 'response.in_progress',
      'response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.delta', 'response.function_call_arguments.done', 'response.output_item.done',
      'response.completed',
    ]);
    expect(out[2]).toMatchObject({ output_index: 0, item: { type: 'message', content: [] } });
    expect(out[11]).toMatchObject({ output_index: 1, name: 'get_weather', arguments: '{"city":"Paris"}' });
    const completed = out[out.length - 1].response as Record<string, unknown>;
    expect(completed.output).toEqual([
      expect.objectContaining({ type: 'message', status: 'completed', content: [expect.objectContaining({ type: 'output_text', text: 'Let me check.' })] }),
      expect.objectContaining({ type: 'function_call', call_id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' }),
    ]);
    expect(completed.usage).toEqual({ input_tokens: 10, input_tokens_details: { cached_tokens: 4, cache_write_tokens: 2 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 3 }, total_tokens: 17 });
  });

  it('signed reasoning becomes a reasoning item whose encrypted_content names the upstream it came from and carries the signed text', () => {
    const response = encodeResponse([{ type: 'reasoning-delta', text: 'hmm' }, { type: 'reasoning-signature', signature: 'sig' }, { type: 'text-delta', text: 'ok' }, { type: 'finish', reason: 'stop', usage: null }], base());
    expect((response!.output as unknown[])[0]).toEqual({ id: 'rs_abc_0', type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'hmm' }], encrypted_content: `patchbay:anthropic:text:${Buffer.from('hmm').toString('base64url')}:sig` });
  });

  it('a finish for length is response.incomplete with reason max_output_tokens', () => {
    const out = events([{ type: 'text-delta', text: 'cut' }, { type: 'finish', reason: 'length', usage: null }]);
    expect(out[out.length - 1]).toMatchObject({ type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } });
  });
});

describe('decode-request (Responses body -> neutral request)', () => {
  const decode = (body: unknown) => decodeResponsesRequest(responsesRequestSchema.parse(body));

  it('groups a turn: calls join the assistant text, outputs join the next user words; developer is a system message; call ids kept', () => {
    const { request, nativeOnly } = decode({
      model: 'm',
      instructions: 'Be brief.',
      input: [
        { role: 'developer', content: 'Use tools.' },
        { role: 'user', content: [{ type: 'input_text', text: 'Weather?' }, { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' }] },
        { role: 'assistant', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }] },
        { type: 'function_call', call_id: 'call_1', name: 'w', arguments: '{"a":1}' },
        { type: 'function_call', call_id: 'call_2', name: 'w', arguments: '{"a":2}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
        { type: 'function_call_output', call_id: 'call_2', output: 'rain' },
        { type: 'reasoning', summary: [], encrypted_content: 'gAAAA-openai-only' },
      ],
    });
    expect(nativeOnly).toEqual([]);
    expect(request.system).toEqual([{ type: 'text', text: 'Be brief.' }]);
    expect(request.messages).toEqual([
      { role: 'system', parts: [{ type: 'text', text: 'Use tools.' }], source: 'input[0]' },
      { role: 'user', parts: [{ type: 'text', text: 'Weather?' }, { type: 'image', mediaType: 'image/png', data: 'AAAA' }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'Checking.' }, { type: 'tool-call', id: 'call_1', name: 'w', input: { a: 1 } }, { type: 'tool-call', id: 'call_2', name: 'w', input: { a: 2 } }] },
      { role: 'user', parts: [{ type: 'tool-result', toolCallId: 'call_1', content: [{ type: 'text', text: 'sunny' }], isError: false }, { type: 'tool-result', toolCallId: 'call_2', content: [{ type: 'text', text: 'rain' }], isError: false }] },
      // OpenAI's own encrypted reasoning, unsealed: kept without a signer, so no adapter gives it to its provider.
      { role: 'assistant', parts: [{ type: 'redacted-reasoning', data: 'gAAAA-openai-only' }] },
    ]);
  });

  it("reasoning items Patchbay sealed name the provider that signed them; redacted ones stay redacted", () => {
    const { request } = decode({
      model: 'm',
      input: [
        { role: 'user', content: 'q' },
        { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'Let me see.' }], encrypted_content: 'patchbay:anthropic:c2ln' },
        { type: 'reasoning', summary: [], encrypted_content: 'patchbay:anthropic:redacted:ZGF0YQ' },
        { type: 'reasoning', summary: [], encrypted_content: 'patchbay:google:EMU-SIG-1' },
      ],
    });
    expect(request.messages[1].parts).toEqual([
      { type: 'reasoning', text: 'Let me see.', signature: 'c2ln', signedBy: 'anthropic' },
      { type: 'redacted-reasoning', data: 'ZGF0YQ', signedBy: 'anthropic' },
      { type: 'reasoning', text: '', signature: 'EMU-SIG-1', signedBy: 'google' },
    ]);
  });

  it('text.format json_schema and reasoning.effort become the chat fields the adapters map', () => {
    const { extras } = decode({ model: 'm', input: 'x', reasoning: { effort: 'high' }, text: { format: { type: 'json_schema', name: 'n', schema: { type: 'object' }, strict: true } } });
    expect(extras).toEqual({ reasoning_effort: 'high', response_format: { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'object' }, strict: true } } });
  });
});
