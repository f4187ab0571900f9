import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { codexBody, userMessage } from '../helpers/codex-request.ts';
import { PROVIDERS, startRig, type ProviderCase, type Rig } from '../helpers/conformance-matrix.ts';
import { specProblems, specSource } from './openai-spec.ts';

/**
 * Answers checked against OpenAI's published OpenAPI spec (the dated copy in this folder): what
 * Patchbay answers on /v1/chat/completions and /v1/responses, JSON and streamed, text and tool
 * calls, served by each of the five providers; and what the OpenAI emulator itself answers, so an
 * emulator that drifts from OpenAI shows up here rather than as a passing test of a wrong shape.
 * Typed clients (the openai SDKs of other languages, Codex's Rust structs) parse by this spec: a
 * missing required field or a value outside an enum breaks them. The next copy of the spec
 * (scripts/extract-openai-spec.js) makes its changes failing tests here.
 */

type Json = Record<string, any>;

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(() => rig?.stop());

const WEATHER = { type: 'function', function: { name: 'weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };

/** The SSE events of a body: each `data:` payload parsed, [DONE] left out. */
function sseData(text: string): Json[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((block) => block.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart()).join('\n'))
    .filter((data) => data !== '' && data !== '[DONE]')
    .map((data) => JSON.parse(data) as Json);
}

async function post(baseUrl: string, path: string, key: string, body: Json): Promise<{ status: number; json: Json | null; events: Json[] }> {
  const res = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.headers.get('content-type')?.includes('text/event-stream')) return { status: res.status, json: null, events: sseData(text) };
  return { status: res.status, json: JSON.parse(text) as Json, events: [] };
}

/** Every problem of every value, each line naming the value (`chunk 3`, `event 5 response.completed`). */
function problems(schema: string, values: Json[], label: (value: Json, index: number) => string): string[] {
  return values.flatMap((value, index) => specProblems(schema, value).map((problem) => `${label(value, index)}: ${problem}`));
}

const chatAsks = (model: string): [string, Json][] => [
  ['text', { model, messages: [{ role: 'user', content: 'Say hello' }] }],
  ['tool call', { model, messages: [{ role: 'user', content: 'What is the weather in Paris?' }], tools: [WEATHER], tool_choice: 'required' }],
];

/** Codex 0.171.0's shape: the tools in an additional_tools item (a namespace holding a custom tool and a function). */
const additionalTools = {
  type: 'additional_tools',
  id: 'at_spec',
  role: 'developer',
  tools: [
    {
      type: 'namespace',
      name: 'functions',
      description: '',
      tools: [
        { type: 'custom', name: 'exec', description: 'Run JavaScript code.' },
        { type: 'function', name: 'wait', strict: false, parameters: { type: 'object', properties: { cell_id: { type: 'string' } }, required: ['cell_id'], additionalProperties: false } },
      ],
    },
  ],
};

const responsesAsks = (model: string): [string, Json][] => [
  ['text', codexBody(model, [userMessage('Say hello')], { tools: [], stream: false })],
  ['function call', codexBody(model, [userMessage('Run exec_command please')], { stream: false })],
  ['custom tool call in a namespace (additional_tools)', { model, input: [additionalTools, userMessage('Use exec to list the files')], tool_choice: 'auto', stream: false, store: false }],
];

describe('the spec copy', () => {
  it('names where it came from', () => {
    expect(specSource()).toMatchObject({ repository: 'https://github.com/openai/openai-openapi', date: '2026-08-21', commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
  });
});

describe('the OpenAI emulator answers as the spec says', () => {
  let emulator: OpenAiEmulator;
  let url: string;
  beforeAll(async () => {
    emulator = new OpenAiEmulator({ apiKey: 'sk-spec' });
    url = `${await emulator.start()}/v1`;
  });
  afterAll(() => emulator?.close());

  it.each(chatAsks('gpt-4o'))('chat completion and chunks: %s', async (_, ask) => {
    const json = await post(url, '/chat/completions', 'sk-spec', ask);
    expect(json.status).toBe(200);
    expect(specProblems('CreateChatCompletionResponse', json.json)).toEqual([]);
    const stream = await post(url, '/chat/completions', 'sk-spec', { ...ask, stream: true, stream_options: { include_usage: true } });
    expect(stream.events.length).toBeGreaterThan(1);
    expect(problems('CreateChatCompletionStreamResponse', stream.events, (_, i) => `chunk ${i}`)).toEqual([]);
  });

  it.each(responsesAsks('gpt-4o'))('response object and stream events: %s', async (_, ask) => {
    const json = await post(url, '/responses', 'sk-spec', ask);
    expect(json.status, JSON.stringify(json.json)).toBe(200);
    expect(specProblems('Response', json.json)).toEqual([]);
    const stream = await post(url, '/responses', 'sk-spec', { ...ask, stream: true });
    expect(stream.events.at(-1)?.type).toBe('response.completed');
    expect(problems('ResponseStreamEvent', stream.events, (e, i) => `event ${i} ${e.type}`)).toEqual([]);
  });
});

describe.each(PROVIDERS.map((p) => [p.name, p] as [string, ProviderCase]))('Patchbay answers as the spec says, served by %s', (_name, provider) => {
  it.each(chatAsks(provider.chat))('chat completion and chunks: %s', async (_, ask) => {
    const json = await post(`${rig.pb.patchbay.url}/v1`, '/chat/completions', rig.pb.key, ask);
    expect(json.status, JSON.stringify(json.json)).toBe(200);
    expect(specProblems('CreateChatCompletionResponse', json.json)).toEqual([]);
    for (const includeUsage of [true, false]) {
      const stream = await post(`${rig.pb.patchbay.url}/v1`, '/chat/completions', rig.pb.key, { ...ask, stream: true, ...(includeUsage ? { stream_options: { include_usage: true } } : {}) });
      expect(stream.events.length).toBeGreaterThan(1);
      expect(problems('CreateChatCompletionStreamResponse', stream.events, (_, i) => `chunk ${i}`)).toEqual([]);
    }
  });

  it.each(responsesAsks(provider.chat))('response object and stream events: %s', async (_, ask) => {
    const json = await post(`${rig.pb.patchbay.url}/v1`, '/responses', rig.pb.key, ask);
    expect(json.status, JSON.stringify(json.json)).toBe(200);
    expect(specProblems('Response', json.json)).toEqual([]);
    const stream = await post(`${rig.pb.patchbay.url}/v1`, '/responses', rig.pb.key, { ...ask, stream: true });
    expect(stream.events.at(-1)?.type).toBe('response.completed');
    expect(problems('ResponseStreamEvent', stream.events, (e, i) => `event ${i} ${e.type}`)).toEqual([]);
  });

  it('an error answer', async () => {
    const json = await post(`${rig.pb.patchbay.url}/v1`, '/chat/completions', rig.pb.key, { model: provider.chat, messages: [{ role: 'user', content: 'hi' }], temperature: 7 });
    expect(json.status).toBe(400);
    expect(specProblems('ErrorResponse', json.json)).toEqual([]);
  });
});
