import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GeminiEmulator, geminiPromptTokens } from './gemini-emulator.ts';
import { embeddingFor } from './openai-emulator.ts';
import { call, parseSse, readUntilEnd } from './emulator-test-helpers.ts';

const KEY = 'gemini-emulator-key';
const AUTH = { 'x-goog-api-key': KEY };
const WEATHER = { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const user = (text: string) => ({ role: 'user', parts: [{ text }] });

describe('Gemini emulator (v1beta wire format)', () => {
  const emulator = new GeminiEmulator({ apiKey: KEY });
  let base = '';
  const generate = (body: Record<string, unknown>, model = 'gemini-2.5-flash', method = 'generateContent', query = '') =>
    call(`${base}/v1beta/models/${model}:${method}${query}`, { headers: AUTH, body });

  beforeAll(async () => {
    base = await emulator.start();
  });
  afterAll(() => emulator.close());
  beforeEach(() => emulator.clearFaults());

  it('accepts the key as x-goog-api-key or ?key=; a bad key is a 400 API_KEY_INVALID, no key a 403', async () => {
    expect((await generate({ contents: [user('hi')] })).status).toBe(200);
    expect((await call(`${base}/v1beta/models/gemini-2.5-flash:generateContent?key=${KEY}`, { body: { contents: [user('hi')] } })).status).toBe(200);
    const bad = await call(`${base}/v1beta/models/gemini-2.5-flash:generateContent?key=wrong`, { body: { contents: [user('hi')] } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' });
    expect(bad.json.error.details[0]).toMatchObject({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' });
    const none = await call(`${base}/v1beta/models/gemini-2.5-flash:generateContent`, { body: { contents: [user('hi')] } });
    expect(none.json.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
  });

  it('answers generateContent with candidates, finishReason and usageMetadata; systemInstruction counts as prompt', async () => {
    const body = { systemInstruction: { parts: [{ text: 'Be brief.' }] }, contents: [user('hello there')] };
    const res = await generate(body);
    expect(res.json).toEqual({
      candidates: [{ content: { parts: [{ text: 'You said: hello there' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 13, candidatesTokenCount: 4, totalTokenCount: 17, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 13 }] },
      modelVersion: 'gemini-2.5-flash',
      responseId: expect.any(String),
    });
    expect(geminiPromptTokens(body)).toBe(13);
    expect(res.headers.get('retry-after')).toBeNull();
    expect([...res.headers.keys()].some((h) => h.startsWith('x-ratelimit'))).toBe(false);
  });

  it('accepts snake_case field names (proto3 JSON) and rejects unknown ones', async () => {
    const snake = await generate({ system_instruction: { parts: [{ text: 'Be brief.' }] }, contents: [user('a b')], generation_config: { max_output_tokens: 2 } });
    expect(snake.json.candidates[0]).toMatchObject({ finishReason: 'MAX_TOKENS', content: { parts: [{ text: 'You said:' }] } });
    const openAiShaped = await generate({ contents: [user('x')], generationConfig: { max_tokens: 5 } });
    expect(openAiShaped.status).toBe(400);
    expect(openAiShaped.json.error.message).toBe(`Invalid JSON payload received. Unknown name "max_tokens" at 'generation_config': Cannot find field.`);
    const part = await generate({ contents: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }] });
    expect(part.json.error.message).toContain(`Unknown name "type" at 'contents[0].parts[0]'`);
  });

  it('streams with alt=sse: CRLF-framed data-only events, no terminator, cumulative usage on every chunk', async () => {
    const res = await generate({ contents: [user('one two three')] }, 'gemini-2.5-flash', 'streamGenerateContent', '?alt=sse');
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.text.startsWith('data: {')).toBe(true);
    expect(res.text.endsWith('}\r\n\r\n')).toBe(true);
    expect(res.text.split('\r\n\r\n').filter(Boolean)).toHaveLength(5);
    expect(res.text).not.toMatch(/event:|\[DONE\]/);
    const chunks = parseSse(res.text).map((e) => e.json);
    expect(chunks.map((c) => c.candidates[0].content.parts[0].text).join('')).toBe('You said: one two three');
    expect(chunks.map((c) => c.usageMetadata.candidatesTokenCount)).toEqual([1, 2, 3, 4, 5]);
    expect(chunks.every((c) => c.usageMetadata.promptTokenCount === 9)).toBe(true);
    expect(chunks.map((c) => c.candidates[0].finishReason)).toEqual([undefined, undefined, undefined, undefined, 'STOP']);
  });

  it('streams a JSON array without alt=sse', async () => {
    const res = await generate({ contents: [user('a')] }, 'gemini-2.5-pro', 'streamGenerateContent');
    const array = JSON.parse(res.text);
    expect(Array.isArray(array)).toBe(true);
    expect(array.map((c: any) => c.candidates[0].content.parts[0].text).join('')).toBe('You said: a');
  });

  it('honours stopSequences, maxOutputTokens and candidateCount', async () => {
    const stopped = await generate({ contents: [user('alpha ### beta')], generationConfig: { stopSequences: ['###'] } });
    expect(stopped.json.candidates[0]).toMatchObject({ finishReason: 'STOP', content: { parts: [{ text: 'You said: alpha ' }] } });
    const two = await generate({ contents: [user('x y')], generationConfig: { candidateCount: 2, temperature: 1.5, topP: 0.9 } });
    expect(two.json.candidates.map((c: any) => [c.index, c.content.parts[0].text])).toEqual([[0, 'You said: x y'], [1, 'You said: x y']]);
    expect(two.json.usageMetadata.candidatesTokenCount).toBe(8);
  });

  it('calls functions (AUTO, ANY with allowedFunctionNames) with finishReason STOP, and NONE answers in text', async () => {
    const tools = [{ functionDeclarations: [WEATHER, { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } }] }];
    const auto = await generate({ contents: [user('Weather in Paris?')], tools });
    expect(auto.json.candidates[0]).toEqual({ content: { parts: [{ functionCall: { name: 'get_weather', args: { city: 'city-value' } } }], role: 'model' }, finishReason: 'STOP', index: 0 });
    expect(auto.json.usageMetadata.candidatesTokenCount).toBe(6);
    const any = await generate({ contents: [user('x')], tools, toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['lookup'] } } });
    expect(any.json.candidates[0].content.parts[0].functionCall).toEqual({ name: 'lookup', args: { q: 'q-value' } });
    const none = await generate({ contents: [user('x')], tools, toolConfig: { functionCallingConfig: { mode: 'NONE' } } });
    expect(none.json.candidates[0].content.parts[0].text).toBe('You said: x');
    const stream = await generate({ contents: [user('x')], tools }, 'gemini-2.5-flash', 'streamGenerateContent', '?alt=sse');
    const chunks = parseSse(stream.text).map((e) => e.json.candidates[0]);
    expect(chunks).toEqual([
      { content: { parts: [{ functionCall: { name: 'get_weather', args: { city: 'city-value' } } }], role: 'model' }, index: 0 },
      { content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 },
    ]);
  });

  it('answers function responses and mentions inline images', async () => {
    const res = await generate({
      contents: [
        user('Weather in Paris?'),
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { content: '18°C' } } }] },
      ],
      tools: [{ functionDeclarations: [WEATHER] }],
    });
    expect(res.json.candidates[0].content.parts[0].text).toBe('The tool returned 18°C');
    const image = await generate({ contents: [{ role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } }] }] });
    expect(image.json.candidates[0].content.parts[0].text).toMatch(/^I see an image\. You said: What is this\?/);
  });

  it.each([
    ['an assistant role', { contents: [user('a'), { role: 'assistant', parts: [{ text: 'b' }] }, user('c')] }, 'Please use a valid role: user, model.'],
    ['a system role', { contents: [{ role: 'system', parts: [{ text: 'a' }] }, user('b')] }, 'Please use a valid role: user, model.'],
    [
      'additionalProperties in a tool schema',
      { contents: [user('x')], tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'object', properties: { a: { type: 'object', additionalProperties: false } }, additionalProperties: false } }] }] },
      `Invalid JSON payload received. Unknown name "additionalProperties" at 'tools[0].function_declarations[0].parameters.properties[0].value': Cannot find field.\nInvalid JSON payload received. Unknown name "additionalProperties" at 'tools[0].function_declarations[0].parameters': Cannot find field.`,
    ],
    ['$schema in a tool schema', { contents: [user('x')], tools: [{ functionDeclarations: [{ name: 'f', parameters: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' } }] }] }, 'Unknown name "$schema"'],
    [
      'a functionResponse without name',
      { contents: [user('x'), { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] }, { role: 'user', parts: [{ functionResponse: { response: { content: 'ok' } } }] }] },
      '* GenerateContentRequest.contents[2].parts[0].function_response.name: Name cannot be empty.\n',
    ],
    [
      'tool results split over several contents',
      {
        contents: [
          user('x'),
          { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }, { functionCall: { name: 'f', args: {} } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'f', response: { content: '1' } } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'f', response: { content: '2' } } }] },
        ],
      },
      'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
    ],
    ['a temperature above 2', { contents: [user('x')], generationConfig: { temperature: 2.5 } }, 'temperature'],
    ['allowedFunctionNames outside ANY', { contents: [user('x')], tools: [{ functionDeclarations: [WEATHER] }], toolConfig: { functionCallingConfig: { mode: 'AUTO', allowedFunctionNames: ['get_weather'] } } }, 'allowed_function_names'],
    ['a plain-string systemInstruction', { contents: [user('x')], systemInstruction: 'Be brief.' }, `Invalid value at 'system_instruction'`],
    ['empty contents', { contents: [] }, '* GenerateContentRequest.contents: contents is not specified\n'],
  ])('rejects %s with 400 INVALID_ARGUMENT', async (_name, body, message) => {
    const res = await generate(body);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(res.json.error.message).toContain(message);
  });

  it('puts schema violations in a BadRequest detail, and answers unknown models with 404 NOT_FOUND', async () => {
    const res = await generate({ contents: [user('x')], tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'object', additionalProperties: false } }] }] });
    expect(res.json.error.details).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'tools[0].function_declarations[0].parameters', description: expect.stringContaining('additionalProperties') }] },
    ]);
    const unknown = await generate({ contents: [user('x')] }, 'gemini-pro');
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toEqual({
      code: 404,
      status: 'NOT_FOUND',
      message: 'models/gemini-pro is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.',
    });
    expect((await generate({ contents: [user('x')] }, 'gemini-embedding-001')).status).toBe(404);
  });

  it('embeds with 3072 native dimensions, truncates to outputDimensionality, batches, and reports no usage', async () => {
    const one = await generate({ content: { parts: [{ text: 'hello' }] } }, 'gemini-embedding-001', 'embedContent');
    expect(one.json).toEqual({ embedding: { values: embeddingFor('hello', 3072) } });
    const small = await generate({ content: { parts: [{ text: 'hello' }] }, outputDimensionality: 768, taskType: 'RETRIEVAL_QUERY' }, 'gemini-embedding-001', 'embedContent');
    expect(small.json.embedding.values).toEqual(one.json.embedding.values.slice(0, 768));
    const batch = await generate(
      { requests: ['a', 'b'].map((text) => ({ model: 'models/gemini-embedding-001', content: { parts: [{ text }] }, output_dimensionality: 256 })) },
      'gemini-embedding-001',
      'batchEmbedContents',
    );
    expect(batch.json).toEqual({ embeddings: [{ values: embeddingFor('a', 256) }, { values: embeddingFor('b', 256) }] });
    const mismatch = await generate({ requests: [{ model: 'models/other', content: { parts: [{ text: 'a' }] } }] }, 'gemini-embedding-001', 'batchEmbedContents');
    expect(mismatch.status).toBe(400);
  });

  it('lists models with supportedGenerationMethods, paginated', async () => {
    const all = await call(`${base}/v1beta/models`, { headers: AUTH });
    expect(all.json.models.map((m: { name: string }) => m.name)).toEqual(['models/gemini-2.5-pro', 'models/gemini-2.5-flash', 'models/gemini-2.5-flash-lite', 'models/gemini-3-pro-preview', 'models/gemini-embedding-001']);
    expect(all.json.models[1]).toMatchObject({ inputTokenLimit: 1048576, supportedGenerationMethods: expect.arrayContaining(['generateContent']) });
    const first = await call(`${base}/v1beta/models?pageSize=3&key=${KEY}`);
    const second = await call(`${base}/v1beta/models?pageSize=3&pageToken=${first.json.nextPageToken}&key=${KEY}`);
    expect(second.json).toEqual({ models: [expect.objectContaining({ name: 'models/gemini-3-pro-preview' }), expect.objectContaining({ name: 'models/gemini-embedding-001' })] });
  });

  it('injects 429 RESOURCE_EXHAUSTED with RetryInfo in the body and no rate-limit headers, and 500/503', async () => {
    emulator.inject({ path: ':generateContent', status: 429, retryAfterSeconds: 26.5 });
    const limited = await generate({ contents: [user('x')] });
    expect(limited.status).toBe(429);
    expect(limited.json.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
    expect(limited.json.error.details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '26.5s' });
    expect(limited.headers.get('retry-after')).toBeNull();
    for (const [status, name] of [[500, 'INTERNAL'], [503, 'UNAVAILABLE']] as const) {
      emulator.inject({ status });
      expect((await generate({ contents: [user('x')] })).json.error).toMatchObject({ code: status, status: name });
    }
  });

  it('cuts a stream mid-way, or sends an error object as a chunk', async () => {
    emulator.inject({ path: 'streamGenerateContent', midStream: { afterEvents: 2, kind: 'drop' } });
    const cut = await readUntilEnd(`${base}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, { headers: AUTH, body: { contents: [user('one two three')] } });
    expect(cut.cut).toBe(true);
    expect(parseSse(cut.text)).toHaveLength(2);
    emulator.inject({ path: 'streamGenerateContent', midStream: { afterEvents: 1, kind: 'error-event' } });
    const errored = await generate({ contents: [user('one two')] }, 'gemini-2.5-flash', 'streamGenerateContent', '?alt=sse');
    const events = parseSse(errored.text);
    expect(events.at(-1)!.json).toEqual({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } });
  });

  it("Gemini 3 signs its call without being asked for thoughts, refuses a replayed call of the current turn without a signature (the skip value stands in), and any signature it did not make", async () => {
    const ask = { contents: [user('Weather in Paris?')], tools: [{ functionDeclarations: [WEATHER] }] };
    const first = await generate(ask, 'gemini-3-pro-preview');
    const call = first.json.candidates[0].content.parts[0];
    expect(call.thoughtSignature).toMatch(/^EMU-SIG-/);
    const replay = (part: Record<string, unknown>) => generate({ ...ask, contents: [user('Weather in Paris?'), { role: 'model', parts: [part] }, { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { content: 'Sunny' } } }] }] }, 'gemini-3-pro-preview');
    expect((await replay(call)).status).toBe(200);
    expect((await replay({ ...call, thoughtSignature: 'skip_thought_signature_validator' })).status).toBe(200);
    const missing = await replay({ functionCall: call.functionCall });
    expect(missing.status).toBe(400);
    expect(missing.json.error.message).toMatch(/^Function call is missing a thought_signature in functionCall parts/);
    const foreign = await replay({ ...call, thoughtSignature: 'RW11MTpzaWduZWQ=' });
    expect(foreign.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: expect.stringMatching(/^Corrupted thought signature/) });
    // Gemini 2.5 checks the signatures it is given, but needs none.
    expect((await generate({ ...ask, contents: [user('Weather in Paris?'), { role: 'model', parts: [{ functionCall: call.functionCall }] }, { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { content: 'Sunny' } } }] }] })).status).toBe(200);
  });
});
