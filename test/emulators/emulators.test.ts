import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorServer } from './emulator-server.ts';
import { OpenAiEmulator, embeddingFor } from './openai-emulator.ts';
import { AnthropicEmulator } from './anthropic-emulator.ts';
import { GeminiEmulator } from './gemini-emulator.ts';
import { GroqEmulator } from './groq-emulator.ts';
import { TogetherEmulator } from './together-emulator.ts';
import { call, parseSse } from './emulator-test-helpers.ts';

/**
 * The five emulators answer the same conversation with the same text, tool call and token counts,
 * each in its own wire format, and share one fault vocabulary. This is what lets a conformance
 * matrix run one scenario against every provider adapter.
 */

const KEY = 'shared-emulator-key';
type Turn = { system?: string; user: string; tool?: { result: string } };
type Answer = { text: string; promptTokens: number; completionTokens: number; toolArgs?: unknown };

const openAiMessages = (t: Turn) => [
  ...(t.system ? [{ role: 'system', content: t.system }] : []),
  { role: 'user', content: t.user },
  ...(t.tool ? [{ role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }, { role: 'tool', tool_call_id: 'call_1', content: t.tool.result }] : []),
];
const OPENAI_TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];

interface Provider {
  name: string;
  emulator: EmulatorServer;
  base: string;
  /** The path faults are injected on. */
  chatPath: string;
  ask(t: Turn, options: { tools?: boolean; stream?: boolean }): Promise<Answer>;
}

function openAiFlavour(name: string, emulator: EmulatorServer, prefix: string, model: string): Provider {
  const provider: Provider = {
    name,
    emulator,
    base: '',
    chatPath: '/chat/completions',
    async ask(t, { tools, stream }) {
      const body = { model, messages: openAiMessages(t), ...(tools ? { tools: OPENAI_TOOLS } : {}), ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) };
      const res = await call(`${provider.base}${prefix}/chat/completions`, { headers: { authorization: `Bearer ${KEY}` }, body });
      if (!stream) {
        const call0 = res.json.choices[0].message.tool_calls?.[0];
        return { text: res.json.choices[0].message.content ?? '', promptTokens: res.json.usage.prompt_tokens, completionTokens: res.json.usage.completion_tokens, toolArgs: call0 && JSON.parse(call0.function.arguments) };
      }
      const chunks = parseSse(res.text).filter((e) => e.data !== '[DONE]').map((e) => e.json);
      const usage = chunks.map((c) => c.usage).filter(Boolean).at(-1);
      return { text: chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens };
    },
  };
  return provider;
}

function anthropic(): Provider {
  const provider: Provider = {
    name: 'anthropic',
    emulator: new AnthropicEmulator({ apiKey: KEY }),
    base: '',
    chatPath: '/v1/messages',
    async ask(t, { tools, stream }) {
      const messages: unknown[] = [{ role: 'user', content: t.user }];
      if (t.tool) {
        messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] });
        messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: t.tool.result }] });
      }
      const body = { model: 'claude-haiku-4-5-20251001', max_tokens: 1000, ...(t.system ? { system: t.system } : {}), messages, ...(tools ? { tools: [{ name: 'get_weather', input_schema: OPENAI_TOOLS[0].function.parameters }] } : {}), stream };
      const res = await call(`${provider.base}/v1/messages`, { headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' }, body });
      if (!stream) {
        const text = res.json.content.filter((b: { type: string }) => b.type === 'text').map((b: { text: string }) => b.text).join('');
        const toolUse = res.json.content.find((b: { type: string }) => b.type === 'tool_use');
        return { text, promptTokens: res.json.usage.input_tokens, completionTokens: res.json.usage.output_tokens, toolArgs: toolUse?.input };
      }
      const events = parseSse(res.text).map((e) => e.json);
      const final = events.find((e) => e.type === 'message_delta').usage;
      return { text: events.map((e) => e.delta?.text ?? '').join(''), promptTokens: final.input_tokens, completionTokens: final.output_tokens };
    },
  };
  return provider;
}

function gemini(): Provider {
  const provider: Provider = {
    name: 'gemini',
    emulator: new GeminiEmulator({ apiKey: KEY }),
    base: '',
    chatPath: '/v1beta/models/gemini-2.5-flash:',
    async ask(t, { tools, stream }) {
      const contents: unknown[] = [{ role: 'user', parts: [{ text: t.user }] }];
      if (t.tool) {
        contents.push({ role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] });
        contents.push({ role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { content: t.tool.result } } }] });
      }
      const body = { ...(t.system ? { systemInstruction: { parts: [{ text: t.system }] } } : {}), contents, ...(tools ? { tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: OPENAI_TOOLS[0].function.parameters }] }] } : {}) };
      const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
      const res = await call(`${provider.base}/v1beta/models/gemini-2.5-flash:${method}`, { headers: { 'x-goog-api-key': KEY }, body });
      const chunks = stream ? parseSse(res.text).map((e) => e.json) : [res.json];
      const parts = chunks.flatMap((c) => c.candidates[0].content.parts ?? []);
      const usage = chunks.at(-1).usageMetadata;
      return { text: parts.map((p: { text?: string }) => p.text ?? '').join(''), promptTokens: usage.promptTokenCount, completionTokens: usage.candidatesTokenCount, toolArgs: parts.find((p: { functionCall?: unknown }) => p.functionCall)?.functionCall.args };
    },
  };
  return provider;
}

const providers: Provider[] = [
  openAiFlavour('openai', new OpenAiEmulator({ apiKey: KEY }), '/v1', 'gpt-4o-mini'),
  anthropic(),
  gemini(),
  openAiFlavour('groq', new GroqEmulator({ apiKey: KEY }), '/openai/v1', 'llama-3.1-8b-instant'),
  openAiFlavour('together', new TogetherEmulator({ apiKey: KEY }), '/v1', 'openai/gpt-oss-120b'),
];

describe('all five emulators answer alike, each in its own wire format', () => {
  beforeAll(async () => {
    for (const p of providers) p.base = await p.emulator.start();
  });
  afterAll(async () => {
    for (const p of providers) await p.emulator.close();
  });

  const expectSame = (answers: Answer[], expected: Partial<Answer>) => {
    for (const [i, a] of answers.entries()) expect({ provider: providers[i].name, ...a }).toEqual({ provider: providers[i].name, ...a, ...expected });
  };

  it('gives the same text and token counts for a system + user conversation', async () => {
    const answers = await Promise.all(providers.map((p) => p.ask({ system: 'You are terse.', user: 'compare the five providers' }, {})));
    // prompt: system (3 words + 3) + user (4 words + 3) + 3; completion: "You said: compare the five providers"
    expectSame(answers, { text: 'You said: compare the five providers', promptTokens: 16, completionTokens: 6 });
  });

  it('streams the same text and final usage', async () => {
    const answers = await Promise.all(providers.map((p) => p.ask({ user: 'stream this please' }, { stream: true })));
    expectSame(answers, { text: 'You said: stream this please', promptTokens: 9, completionTokens: 5 });
  });

  it('calls the offered tool with the same arguments and the same token cost', async () => {
    const answers = await Promise.all(providers.map((p) => p.ask({ user: 'Weather in Paris?' }, { tools: true })));
    expectSame(answers, { text: '', toolArgs: { city: 'city-value' }, completionTokens: 6, promptTokens: 9 });
  });

  it('answers a tool result the same way', async () => {
    const answers = await Promise.all(providers.map((p) => p.ask({ user: 'Weather?', tool: { result: '18°C' } }, { tools: true })));
    // user (1 + 3) + assistant tool call (0 + 3) + tool result (1 + 3) + 3
    expectSame(answers, { text: 'The tool returned 18°C', promptTokens: 14, completionTokens: 4 });
  });

  it('produces the same embedding for the same text at the same size', async () => {
    const text = 'the same words';
    const openai = await call(`${providers[0].base}/v1/embeddings`, { headers: { authorization: `Bearer ${KEY}` }, body: { model: 'text-embedding-3-large', input: text, dimensions: 768 } });
    const google = await call(`${providers[2].base}/v1beta/models/gemini-embedding-001:embedContent`, { headers: { 'x-goog-api-key': KEY }, body: { content: { parts: [{ text }] }, outputDimensionality: 768 } });
    const together = await call(`${providers[4].base}/v1/embeddings`, { headers: { authorization: `Bearer ${KEY}` }, body: { model: 'BAAI/bge-base-en-v1.5', input: text } });
    const expected = embeddingFor(text, 768);
    expect(openai.json.data[0].embedding).toEqual(expected);
    expect(google.json.embedding.values).toEqual(expected);
    expect(together.json.data[0].embedding).toEqual(expected);
  });

  describe.each(providers.map((p) => [p.name, p] as const))('shared fault vocabulary: %s', (_name, p) => {
    it('records requests, delays, drops before headers, and fails a given number of times on a path', async () => {
      p.emulator.clearFaults();
      const before = p.emulator.count(p.chatPath);
      p.emulator.inject({ path: p.chatPath, delayMs: 150 });
      const started = Date.now();
      await p.ask({ user: 'slow' }, {});
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
      expect(p.emulator.count(p.chatPath)).toBe(before + 1);

      p.emulator.inject({ path: p.chatPath, drop: 'before-headers' });
      await expect(p.ask({ user: 'dropped' }, {})).rejects.toThrow();

      p.emulator.inject({ path: p.chatPath, status: 500, times: 2 });
      await expect(p.ask({ user: 'fails' }, {})).rejects.toThrow();
      await expect(p.ask({ user: 'fails' }, {})).rejects.toThrow();
      expect((await p.ask({ user: 'recovers' }, {})).text).toBe('You said: recovers');

      p.emulator.inject({ path: '/no-such-path', status: 500 });
      expect((await p.ask({ user: 'unaffected' }, {})).text).toBe('You said: unaffected');
      p.emulator.clearFaults();
    });

    it('holds a stream after some events until released', async () => {
      let release!: () => void;
      const until = new Promise<void>((resolve) => (release = resolve));
      p.emulator.inject({ path: p.chatPath, hold: { afterEvents: 2, until } });
      let done = false;
      const answer = p.ask({ user: 'held answer here' }, { stream: true }).then((a) => ((done = true), a));
      await new Promise((r) => setTimeout(r, 150));
      expect(done).toBe(false);
      release();
      expect((await answer).text).toBe('You said: held answer here');
    });
  });
});
