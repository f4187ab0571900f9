import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../core/errors/patchbay-error.ts';
import type { ChatRequest } from '../../../core/protocols/openai/request-schemas.ts';
import { claudeVersion, samplingRuleFor } from '../../../core/providers/anthropic/anthropic-settings.ts';
import { mapChatRequest } from './through-neutral.ts';

const SONNET = { model: 'claude-sonnet-4-5-20250929', maxOutput: 64000 };
const hello = [{ role: 'user' as const, content: 'Hi' }];

function body(request: Partial<ChatRequest>, endpoint = SONNET) {
  return mapChatRequest({ model: 'claude-sonnet-4-5', messages: hello, ...request } as ChatRequest, endpoint).body;
}

function refusal(request: Partial<ChatRequest>): InvalidRequestError {
  try {
    body(request);
  } catch (error) {
    if (error instanceof InvalidRequestError) return error;
    throw error;
  }
  throw new Error('expected an InvalidRequestError');
}

const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

describe('mapChatRequest', () => {
  it('maps the OpenAI equivalent of the reference request example (2.2) to that exact body', () => {
    const request = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'toolu_01A', content: '{"temp_c":18}' },
      ],
      tools: [weatherTool],
      tool_choice: 'auto',
      stop: ['###'],
      temperature: 0.3,
      stream: false,
    } as ChatRequest;
    expect(mapChatRequest(request, SONNET)).toEqual({
      jsonToolName: null,
      body: {
        model: 'claude-sonnet-4-5-20250929',
        max_tokens: 1024,
        system: 'You are terse.',
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A', content: '{"temp_c":18}' }] },
        ],
        tools: [{ name: 'get_weather', description: 'Current weather', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
        tool_choice: { type: 'auto' },
        stop_sequences: ['###'],
        temperature: 0.3,
      },
    });
  });

  it.each([
    ['max_completion_tokens wins', { max_completion_tokens: 300, max_tokens: 200 }, SONNET, 300],
    ['max_tokens', { max_tokens: 200 }, SONNET, 200],
    ["neither: the model's maximum output", {}, SONNET, 64000],
    ['neither, and no maximum known', {}, { model: 'claude-custom', maxOutput: 0 }, 4096],
  ])('max_tokens: %s', (_name, request, endpoint, expected) => {
    expect(body(request, endpoint).max_tokens).toBe(expected);
  });

  it.each([
    ['temperature within 0..1 passes', { temperature: 0.7 }, SONNET.model, { temperature: 0.7 }],
    ['temperature 0 passes', { temperature: 0 }, SONNET.model, { temperature: 0 }],
    ['temperature above 1 is clamped to 1', { temperature: 1.8 }, SONNET.model, { temperature: 1 }],
    ['top_p alone passes', { top_p: 0.9 }, SONNET.model, { top_p: 0.9 }],
    ['both on Sonnet 4.5: temperature only', { temperature: 0.2, top_p: 0.9 }, SONNET.model, { temperature: 0.2 }],
    ['both on Haiku 4.5: temperature only', { temperature: 0.2, top_p: 0.9 }, 'claude-haiku-4-5-20251001', { temperature: 0.2 }],
    ['both on Claude 3.5 Sonnet: both', { temperature: 0.2, top_p: 0.9 }, 'claude-3-5-sonnet-20241022', { temperature: 0.2, top_p: 0.9 }],
    ['both on Opus 4.7: neither (fixed sampling)', { temperature: 0.2, top_p: 0.9 }, 'claude-opus-4-7', {}],
    ['both on an unknown model id: temperature only', { temperature: 0.2, top_p: 0.9 }, 'my-claude', { temperature: 0.2 }],
  ])('sampling: %s', (_name, request, model, expected) => {
    const mapped = body(request, { model, maxOutput: 8192 });
    expect({ temperature: mapped.temperature, top_p: mapped.top_p }).toEqual({ temperature: undefined, top_p: undefined, ...expected });
  });

  it.each([
    ['a string', '###', ['###']],
    ['an array', ['END', 'STOP'], ['END', 'STOP']],
    ['empty and whitespace-only entries dropped', ['', ' ', '\n\t', 'END'], ['END']],
    ['only blanks: no stop_sequences', ['', '  '], undefined],
    ['null', null, undefined],
  ])('stop: %s', (_name, stop, expected) => {
    expect(body({ stop } as Partial<ChatRequest>).stop_sequences).toEqual(expected);
  });

  it.each([
    ['auto', 'auto', { type: 'auto' }],
    ['none', 'none', { type: 'none' }],
    ['required', 'required', { type: 'any' }],
    ['a named function', { type: 'function', function: { name: 'get_weather' } }, { type: 'tool', name: 'get_weather' }],
    ['absent', undefined, { type: 'auto' }],
  ])('tool_choice %s', (_name, toolChoice, expected) => {
    expect(body({ tools: [weatherTool], tool_choice: toolChoice } as Partial<ChatRequest>).tool_choice).toEqual(expected);
  });

  it.each([
    ['auto', 'auto', { type: 'auto', disable_parallel_tool_use: true }],
    ['required', 'required', { type: 'any', disable_parallel_tool_use: true }],
    ['named', { type: 'function', function: { name: 'get_weather' } }, { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true }],
    ['none (takes no option)', 'none', { type: 'none' }],
  ])('parallel_tool_calls: false with tool_choice %s', (_name, toolChoice, expected) => {
    expect(body({ tools: [weatherTool], tool_choice: toolChoice, parallel_tool_calls: false } as Partial<ChatRequest>).tool_choice).toEqual(expected);
  });

  it('leaves tools, tool_choice and parallel_tool_calls out when there is no tool', () => {
    const mapped = body({ tool_choice: 'none', parallel_tool_calls: false });
    expect(mapped).not.toHaveProperty('tools');
    expect(mapped).not.toHaveProperty('tool_choice');
  });

  it.each([
    ['no parameters: an empty object schema', { name: 'now' }, { name: 'now', input_schema: { type: 'object', properties: {} } }],
    ['parameters without type: type object added', { name: 'f', parameters: { properties: { a: { type: 'string' } } } }, { name: 'f', input_schema: { type: 'object', properties: { a: { type: 'string' } } } }],
    ['schema kept as given', { name: 'f', description: 'd', parameters: { type: 'object', additionalProperties: false } }, { name: 'f', description: 'd', input_schema: { type: 'object', additionalProperties: false } }],
  ])('tools: %s', (_name, fn, expected) => {
    expect(body({ tools: [{ type: 'function', function: fn }] } as Partial<ChatRequest>).tools).toEqual([expected]);
  });

  it('refuses tool parameters with a top-level combinator or a non-object type, naming the tool', () => {
    const anyOf = refusal({ tools: [weatherTool, { type: 'function', function: { name: 'f', parameters: { anyOf: [{ type: 'object' }] } } }] } as Partial<ChatRequest>);
    expect(anyOf.param).toBe('tools[1].function.parameters');
    expect(anyOf.message).toContain('anyOf');
    expect(refusal({ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'string' } } }] } as Partial<ChatRequest>).param).toBe('tools[0].function.parameters');
  });

  it('sends user as metadata.user_id and drops what Anthropic has no place for', () => {
    const mapped = body({ user: 'user-123', seed: 7, presence_penalty: 0.5, frequency_penalty: 0.5, n: 3, stream: true, stream_options: { include_usage: true }, service_tier: 'flex', store: true } as Partial<ChatRequest>);
    expect(mapped).toEqual({ model: SONNET.model, max_tokens: 64000, messages: [{ role: 'user', content: 'Hi' }], metadata: { user_id: 'user-123' } });
  });

  it.each([
    ['logprobs', { logprobs: true }],
    ['top_logprobs', { top_logprobs: 3 }],
    ['logit_bias', { logit_bias: { '50256': -100 } }],
    ['modalities', { modalities: ['text', 'audio'] }],
    ['audio', { audio: { voice: 'alloy', format: 'mp3' } }],
    ['functions', { functions: [{ name: 'f' }] }],
  ])('refuses %s with an InvalidRequestError naming it', (param, request) => {
    const error = refusal(request as Partial<ChatRequest>);
    expect(error).toMatchObject({ status: 400, param, type: 'invalid_request_error' });
  });

  it('accepts logprobs: false and an empty logit_bias', () => {
    expect(() => body({ logprobs: false, logit_bias: {} } as Partial<ChatRequest>)).not.toThrow();
  });
});

describe('mapChatRequest with response_format', () => {
  it('json_object: a forced json_response tool taking any object', () => {
    const mapped = mapChatRequest({ model: 'm', messages: hello, response_format: { type: 'json_object' } } as ChatRequest, SONNET);
    expect(mapped.jsonToolName).toBe('json_response');
    expect(mapped.body.tools).toEqual([{ name: 'json_response', description: expect.any(String), input_schema: { type: 'object' } }]);
    expect(mapped.body.tool_choice).toEqual({ type: 'tool', name: 'json_response', disable_parallel_tool_use: true });
  });

  it('json_schema: the schema becomes the tool input_schema, its description the tool description', () => {
    const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'], additionalProperties: false };
    const mapped = body({ response_format: { type: 'json_schema', json_schema: { name: 'math', description: 'The result', schema, strict: true } } } as Partial<ChatRequest>);
    expect(mapped.tools).toEqual([{ name: 'json_response', description: 'The result', input_schema: schema }]);
  });

  it('with client tools the model must call one: a client tool or the JSON tool', () => {
    const mapped = body({ tools: [weatherTool], response_format: { type: 'json_object' } } as Partial<ChatRequest>);
    expect(mapped.tools?.map((t) => t.name)).toEqual(['get_weather', 'json_response']);
    expect(mapped.tool_choice).toEqual({ type: 'any' });
  });

  it('a named client tool stays forced; tool_choice none forces the JSON tool', () => {
    const named = body({ tools: [weatherTool], tool_choice: { type: 'function', function: { name: 'get_weather' } }, response_format: { type: 'json_object' } } as Partial<ChatRequest>);
    expect(named.tool_choice).toEqual({ type: 'tool', name: 'get_weather' });
    const none = body({ tools: [weatherTool], tool_choice: 'none', response_format: { type: 'json_object' } } as Partial<ChatRequest>);
    expect(none.tool_choice).toEqual({ type: 'tool', name: 'json_response', disable_parallel_tool_use: true });
  });

  it('type text changes nothing', () => {
    expect(mapChatRequest({ model: 'm', messages: hello, response_format: { type: 'text' } } as ChatRequest, SONNET)).toEqual({ jsonToolName: null, body: body({}) });
  });

  it('refuses a non-object root schema, an unknown type and a client tool named json_response', () => {
    expect(refusal({ response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'array' } } } } as Partial<ChatRequest>).param).toBe('response_format.json_schema.schema');
    expect(refusal({ response_format: { type: 'yaml' } } as Partial<ChatRequest>).param).toBe('response_format.type');
    expect(refusal({ tools: [{ type: 'function', function: { name: 'json_response' } }], response_format: { type: 'json_object' } } as Partial<ChatRequest>).param).toBe('tools');
  });
});

describe('anthropic settings', () => {
  it.each([
    ['claude-3-5-sonnet-20241022', 3.5, 'both'],
    ['claude-3-opus-20240229', 3, 'both'],
    ['claude-opus-4-20250514', 4, 'both'],
    ['claude-opus-4-1-20250805', 4.1, 'one-of'],
    ['claude-sonnet-4-5-20250929', 4.5, 'one-of'],
    ['claude-haiku-4-5', 4.5, 'one-of'],
    ['claude-sonnet-4-6', 4.6, 'one-of'],
    ['claude-opus-4-7', 4.7, 'fixed'],
    ['claude-sonnet-5', 5, 'fixed'],
    ['my-alias', undefined, 'one-of'],
  ])('%s is version %s, sampling rule %s', (model, version, rule) => {
    expect(claudeVersion(model)).toBe(version);
    expect(samplingRuleFor(model)).toBe(rule);
  });
});
