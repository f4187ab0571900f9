import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../core/errors/patchbay-error.ts';
import type { ChatRequest } from '../../../core/protocols/openai/request-schemas.ts';
import { mapChatRequest, mapResponse } from './through-neutral.ts';

const PNG = 'iVBORw0KGgo=';

function chat(fields: Partial<ChatRequest>): ChatRequest {
  return { model: 'google/gemini-2.5-flash', messages: [{ role: 'user', content: 'hi' }], ...fields } as ChatRequest;
}

function paramOf(fn: () => unknown): string | null {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestError);
    return (error as InvalidRequestError).param;
  }
  throw new Error('expected an InvalidRequestError');
}

describe('mapChatRequest: messages', () => {
  it('builds the reference generateContent body (3.2) from its OpenAI equivalent', () => {
    const body = mapChatRequest(
      chat({
        messages: [
          { role: 'system', content: 'You are terse.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: "What is in this image and what's the weather in Paris?" },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            ],
          },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":18}' },
        ],
        tools: [
          {
            type: 'function',
            function: { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } },
          },
        ],
        tool_choice: 'auto',
        temperature: 0.2,
        top_p: 0.95,
        max_completion_tokens: 512,
        stop: ['###'],
      }),
      'gemini-2.5-flash',
    );
    expect(body).toEqual({
      systemInstruction: { parts: [{ text: 'You are terse.' }] },
      contents: [
        {
          role: 'user',
          parts: [{ text: "What is in this image and what's the weather in Paris?" }, { inlineData: { mimeType: 'image/png', data: PNG } }],
        },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp_c: 18 } } }] },
      ],
      tools: [
        {
          functionDeclarations: [
            { name: 'get_weather', description: 'Current weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] } },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'AUTO' } },
      generationConfig: { temperature: 0.2, topP: 0.95, maxOutputTokens: 512, stopSequences: ['###'] },
    });
  });

  it('hoists system and developer messages, wherever they stand, into systemInstruction', () => {
    const body = mapChatRequest(
      chat({
        messages: [
          { role: 'developer', content: 'Rule one.' },
          { role: 'user', content: 'a' },
          { role: 'system', content: [{ type: 'text', text: 'Rule ' }, { type: 'text', text: 'two.' }] },
          { role: 'assistant', content: 'b' },
        ],
      }),
      'gemini-2.5-flash',
    );
    expect(body.systemInstruction).toEqual({ parts: [{ text: 'Rule one.' }, { text: 'Rule two.' }] });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'a' }] },
      { role: 'model', parts: [{ text: 'b' }] },
    ]);
  });

  it('merges consecutive turns of one role and skips empty ones', () => {
    const body = mapChatRequest(
      chat({
        messages: [
          { role: 'user', content: 'one' },
          { role: 'user', content: '' },
          { role: 'user', content: 'two' },
          { role: 'assistant', content: 'three' },
          { role: 'assistant', content: 'four' },
        ],
      }),
      'gemini-2.5-flash',
    );
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'one' }, { text: 'two' }] },
      { role: 'model', parts: [{ text: 'three' }, { text: 'four' }] },
    ]);
  });

  it('asks a request of system messages alone as the user turn', () => {
    const body = mapChatRequest(chat({ messages: [{ role: 'system', content: 'Say hi.' }] }), 'gemini-2.5-flash');
    expect(body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Say hi.' }] }] });
  });

  it('merges parallel tool results into one user turn, named by tool_call_id, in the calls’ order', () => {
    const body = mapChatRequest(
      chat({
        messages: [
          { role: 'user', content: 'Weather and time in Paris?' },
          {
            role: 'assistant',
            content: 'Checking.',
            tool_calls: [
              { id: 'call_w', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { id: 'call_t', type: 'function', function: { name: 'get_time', arguments: '' } },
              { id: 'call_n', type: 'function', function: { name: 'get_news', arguments: '{}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_t', content: '14:05' },
          { role: 'tool', tool_call_id: 'call_w', content: [{ type: 'text', text: '{"temp_c":' }, { type: 'text', text: '18}' }] },
          { role: 'tool', tool_call_id: 'call_n', content: '["a","b"]' },
          { role: 'user', content: 'Thanks.' },
        ],
      }),
      'gemini-2.5-flash',
    );
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
      {
        role: 'model',
        parts: [
          { text: 'Checking.' },
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
          { functionCall: { name: 'get_time', args: {} } },
          { functionCall: { name: 'get_news', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { temp_c: 18 } } },
          { functionResponse: { name: 'get_time', response: { content: '14:05' } } },
          // Gemini's response must be an object: a JSON array is wrapped like text.
          { functionResponse: { name: 'get_news', response: { content: '["a","b"]' } } },
          { text: 'Thanks.' },
        ],
      },
    ]);
  });

  it('round-trips a Gemini function call through OpenAI tool-call ids', () => {
    const completion = mapResponse(
      {
        candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'weather', args: { location: 'San Francisco' } } }] }, finishReason: 'STOP', index: 0 }],
      },
      { id: 'chatcmpl-x', created: 1, model: 'gemini-2.5-flash', nextToolCallId: () => 'call_synth1', maxToolCalls: Infinity },
    );
    const assistant = completion.choices[0].message;
    expect(assistant.tool_calls?.[0].id).toBe('call_synth1');
    const body = mapChatRequest(
      chat({
        messages: [
          { role: 'user', content: 'Weather in SF?' },
          { role: 'assistant', content: assistant.content, tool_calls: assistant.tool_calls!.map((c) => ({ ...c, function: { ...c.function } })) },
          { role: 'tool', tool_call_id: assistant.tool_calls![0].id, content: 'Foggy, 14°C' },
        ],
      }),
      'gemini-2.5-flash',
    );
    expect(body.contents.slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'weather', args: { location: 'San Francisco' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'weather', response: { content: 'Foggy, 14°C' } } }] },
    ]);
  });

  it('marks the first replayed call of a turn with the skip signature on Gemini 3 only', () => {
    const messages: ChatRequest['messages'] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } },
          { id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } },
        ],
      },
    ];
    const gemini3 = mapChatRequest(chat({ messages }), 'gemini-3-pro-preview');
    expect(gemini3.contents[1].parts).toEqual([
      { functionCall: { name: 'f', args: {} }, thoughtSignature: 'skip_thought_signature_validator' },
      { functionCall: { name: 'g', args: {} } },
    ]);
    const gemini25 = mapChatRequest(chat({ messages }), 'gemini-2.5-flash');
    expect(gemini25.contents[1].parts.every((p) => p.thoughtSignature === undefined)).toBe(true);
  });

  it('refuses a tool result whose call is unknown, and arguments that are not a JSON object', () => {
    expect(paramOf(() => mapChatRequest(chat({ messages: [{ role: 'tool', tool_call_id: 'nope', content: 'x' }] }), 'gemini-2.5-flash'))).toBe('messages[0].tool_call_id');
    const bad = (args: string) =>
      chat({ messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: args } }] }] });
    expect(paramOf(() => mapChatRequest(bad('{oops'), 'gemini-2.5-flash'))).toBe('messages[1].tool_calls[0].function.arguments');
    expect(paramOf(() => mapChatRequest(bad('[1,2]'), 'gemini-2.5-flash'))).toBe('messages[1].tool_calls[0].function.arguments');
  });
});

describe('mapChatRequest: content parts', () => {
  const withPart = (part: unknown) => chat({ messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, part] } as ChatRequest['messages'][number]] });

  it('sends data URLs inline, Gemini Files API URIs as fileData, audio inline', () => {
    const inline = mapChatRequest(withPart({ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } }), 'gemini-2.5-flash');
    expect(inline.contents[0].parts[1]).toEqual({ inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQ' } });
    const uri = 'https://generativelanguage.googleapis.com/v1beta/files/abc123';
    const file = mapChatRequest(withPart({ type: 'image_url', image_url: { url: uri } }), 'gemini-2.5-flash');
    expect(file.contents[0].parts[1]).toEqual({ fileData: { fileUri: uri } });
    const audio = mapChatRequest(withPart({ type: 'input_audio', input_audio: { data: 'UklGR', format: 'wav' } }), 'gemini-2.5-flash');
    expect(audio.contents[0].parts[1]).toEqual({ inlineData: { mimeType: 'audio/wav', data: 'UklGR' } });
    const pdf = mapChatRequest(withPart({ type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBER' } }), 'gemini-2.5-flash');
    expect(pdf.contents[0].parts[1]).toEqual({ inlineData: { mimeType: 'application/pdf', data: 'JVBER' } });
  });

  it('refuses web image URLs and file ids, naming the parameter', () => {
    expect(paramOf(() => mapChatRequest(withPart({ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }), 'gemini-2.5-flash'))).toBe(
      'messages[0].content[1].image_url.url',
    );
    expect(paramOf(() => mapChatRequest(withPart({ type: 'image_url', image_url: { url: 'data:image/svg+xml,<svg/>' } }), 'gemini-2.5-flash'))).toBe(
      'messages[0].content[1].image_url.url',
    );
    expect(paramOf(() => mapChatRequest(withPart({ type: 'file', file: { file_id: 'file-1' } }), 'gemini-2.5-flash'))).toBe('messages[0].content[1].file');
  });
});

describe('mapChatRequest: parameters', () => {
  const configCases: { name: string; fields: Partial<ChatRequest>; expected: unknown }[] = [
    { name: 'no limit leaves maxOutputTokens unset (the model maximum)', fields: {}, expected: undefined },
    { name: 'max_tokens', fields: { max_tokens: 100 }, expected: { maxOutputTokens: 100 } },
    { name: 'max_completion_tokens wins over max_tokens', fields: { max_tokens: 100, max_completion_tokens: 50 }, expected: { maxOutputTokens: 50 } },
    { name: 'temperature 0..2 as is, including 0', fields: { temperature: 0 }, expected: { temperature: 0 } },
    { name: 'temperature 2', fields: { temperature: 2 }, expected: { temperature: 2 } },
    { name: 'stop string, empty entries dropped', fields: { stop: ['', 'END'] }, expected: { stopSequences: ['END'] } },
    { name: 'stop as one string', fields: { stop: 'END' }, expected: { stopSequences: ['END'] } },
    { name: 'n > 1 is candidateCount, n = 1 is the default', fields: { n: 3 }, expected: { candidateCount: 3 } },
    { name: 'n = 1', fields: { n: 1 }, expected: undefined },
    { name: 'seed and penalties', fields: { seed: 7, presence_penalty: 0.5, frequency_penalty: -0.5 }, expected: { seed: 7, presencePenalty: 0.5, frequencyPenalty: -0.5 } },
    { name: 'zero penalties are not sent', fields: { presence_penalty: 0, frequency_penalty: 0 }, expected: undefined },
    { name: 'json_object', fields: { response_format: { type: 'json_object' } }, expected: { responseMimeType: 'application/json' } },
    { name: 'text', fields: { response_format: { type: 'text' } }, expected: undefined },
    {
      name: 'json_schema goes to responseJsonSchema without its dialect marker',
      fields: {
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'r', strict: true, schema: { $schema: 'x', type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false } },
        },
      },
      expected: { responseMimeType: 'application/json', responseJsonSchema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false } },
    },
    { name: 'user, parallel_tool_calls and stream_options do not reach Gemini', fields: { user: 'u1', parallel_tool_calls: false, stream_options: { include_usage: true } }, expected: undefined },
  ];

  it.each(configCases)('generationConfig: $name', ({ fields, expected }) => {
    expect(mapChatRequest(chat(fields), 'gemini-2.5-flash').generationConfig).toEqual(expected);
  });

  const toolChoiceCases: { choice: ChatRequest['tool_choice']; expected: unknown }[] = [
    { choice: undefined, expected: undefined },
    { choice: 'auto', expected: { functionCallingConfig: { mode: 'AUTO' } } },
    { choice: 'none', expected: { functionCallingConfig: { mode: 'NONE' } } },
    { choice: 'required', expected: { functionCallingConfig: { mode: 'ANY' } } },
    { choice: { type: 'function', function: { name: 'lookup' } }, expected: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['lookup'] } } },
  ];

  it.each(toolChoiceCases)('tool_choice $choice', ({ choice, expected }) => {
    const body = mapChatRequest(chat({ tools: [{ type: 'function', function: { name: 'lookup' } }], tool_choice: choice }), 'gemini-2.5-flash');
    expect(body.toolConfig).toEqual(expected);
    // A tool without arguments is declared without parameters (Gemini rejects an empty OBJECT).
    expect(body.tools).toEqual([{ functionDeclarations: [{ name: 'lookup' }] }]);
  });

  it('refuses what Gemini cannot honour, naming the parameter', () => {
    expect(paramOf(() => mapChatRequest(chat({ logprobs: true }), 'gemini-2.5-flash'))).toBe('logprobs');
    expect(paramOf(() => mapChatRequest(chat({ top_logprobs: 3 }), 'gemini-2.5-flash'))).toBe('top_logprobs');
    expect(paramOf(() => mapChatRequest(chat({ logit_bias: { '50256': -100 } }), 'gemini-2.5-flash'))).toBe('logit_bias');
    expect(paramOf(() => mapChatRequest(chat({ modalities: ['text', 'audio'] }), 'gemini-2.5-flash'))).toBe('modalities');
    expect(paramOf(() => mapChatRequest(chat({ functions: [{ name: 'f' }] }), 'gemini-2.5-flash'))).toBe('functions');
    expect(paramOf(() => mapChatRequest(chat({ response_format: { type: 'yaml' } }), 'gemini-2.5-flash'))).toBe('response_format.type');
    expect(paramOf(() => mapChatRequest(chat({ tools: [{ type: 'function', function: { name: '1st' } }] }), 'gemini-2.5-flash'))).toBe('tools[0].function.name');
  });

  it('accepts the harmless forms of those parameters', () => {
    expect(() => mapChatRequest(chat({ logprobs: false, top_logprobs: 0, logit_bias: {} }), 'gemini-2.5-flash')).not.toThrow();
  });
});
