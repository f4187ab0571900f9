import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicEmulator } from '../emulators/anthropic-emulator.ts';
import type { ModelScript } from '../emulators/emulator-common.ts';
import type { EmulatorServer } from '../emulators/emulator-server.ts';
import { GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

/**
 * One session with thinking on and a two-tool loop, moved from provider to provider turn by turn
 * (A -> B -> A), as a pinned model or a fallback moves it. The emulators check what the providers
 * check: Anthropic its thinking signatures and, with thinking enabled, that the assistant turn a
 * tool result answers begins with its thinking; Gemini 3 its thought signatures (its own, or the
 * documented skip value, on each step's first call); OpenAI its encrypted reasoning. Every turn
 * must be answered, and what a provider could not be given is said in X-Patchbay-Dropped.
 */

const KEYS = { anthropic: 'sk-ant-moves', openai: 'sk-moves', google: 'AIza-moves', groq: 'gsk_moves' };
let emulators: { anthropic: AnthropicEmulator; openai: OpenAiEmulator; google: GeminiEmulator; groq: GroqEmulator };
let pb: TestPatchbay;
let anthropic: Anthropic;
let openai: OpenAI;

/** Weather, then the time, then the answer: two tool calls in one user turn, on whichever provider answers each step. */
const twoTools: ModelScript = (view) => {
  const ask = view.messages.map((m) => m.role).lastIndexOf('user');
  const done = view.messages.slice(ask + 1).filter((m) => m.role === 'tool').length;
  if (done === 0) return { tool: 'get_weather', input: { city: 'Paris' } };
  if (done === 1) return { tool: 'get_time', input: { city: 'Paris' } };
  return { text: 'Sunny, and it is noon.' };
};

beforeAll(async () => {
  emulators = {
    anthropic: new AnthropicEmulator({ apiKey: KEYS.anthropic }),
    openai: new OpenAiEmulator({ apiKey: KEYS.openai }),
    google: new GeminiEmulator({ apiKey: KEYS.google }),
    groq: new GroqEmulator({ apiKey: KEYS.groq }),
  };
  const [a, o, g, q] = await Promise.all([emulators.anthropic.start(), emulators.openai.start(), emulators.google.start(), emulators.groq.start()]);
  const gemini3 = { id: 'gemini-3-pro-preview', contextWindow: 1048576, maxOutput: 65536, capabilities: ['chat', 'tools', 'images', 'streaming', 'reasoning'] };
  pb = await startPatchbay({
    config: {
      providers: {
        anthropic: { baseUrl: `${a}/v1` },
        openai: { baseUrl: `${o}/v1` },
        google: { baseUrl: `${g}/v1beta`, models: [gemini3] },
        groq: { baseUrl: `${q}/openai/v1` },
      },
    },
    env: { ANTHROPIC_API_KEY: KEYS.anthropic, OPENAI_API_KEY: KEYS.openai, GEMINI_API_KEY: KEYS.google, GROQ_API_KEY: KEYS.groq },
  });
  anthropic = new Anthropic({ baseURL: pb.patchbay.url, apiKey: pb.key, maxRetries: 0 });
  openai = new OpenAI({ baseURL: `${pb.patchbay.url}/v1`, apiKey: pb.key, maxRetries: 0 });
});
afterAll(async () => {
  await pb?.stop();
  await Promise.all(Object.values(emulators ?? {}).map((e) => e.close()));
});
beforeEach(() => {
  for (const emulator of Object.values(emulators)) emulator.script = twoTools;
});

const CLAUDE = 'anthropic/claude-haiku-4-5-20251001';
const GEMINI_3 = 'google/gemini-3-pro-preview';
const GPT = 'openai/gpt-4o';
const GROQ = 'groq/openai/gpt-oss-120b';

const lastBody = (emulator: EmulatorServer) => emulator.requests.at(-1)!.body as Record<string, any>;
const dropped = (response: Response) => (response.headers.get('x-patchbay-dropped') ?? '').split(', ').filter(Boolean);

describe('/v1/messages: a session with thinking and tools moved A -> B -> A', () => {
  const tools: Anthropic.Tool[] = ['get_weather', 'get_time'].map((name) => ({ name, description: name, input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }));
  const thinking = { type: 'enabled' as const, budget_tokens: 1024 };

  /** One session: each turn on the model given, the assistant's content replayed as the SDK keeps it, tool calls answered. */
  function session() {
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather and time in Paris?' }];
    return {
      messages,
      async turn(model: string, stream = false) {
        const params = { model, max_tokens: 4096, thinking, tools, messages };
        const { data, response } = stream ? await anthropic.messages.stream(params).withResponse().then(async (r) => ({ data: await r.data.finalMessage(), response: r.response })) : await anthropic.messages.create(params).withResponse();
        messages.push({ role: 'assistant', content: data.content });
        const call = data.content.find((b) => b.type === 'tool_use');
        if (call) messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: call.name === 'get_weather' ? 'Sunny' : '12:00' }] });
        return { message: data, dropped: dropped(response) };
      },
    };
  }

  it("Anthropic -> OpenAI -> Anthropic: the OpenAI turn leaves Anthropic's thinking out and says so; Anthropic answers the OpenAI tool turn without thinking, and thinks again from the next user turn", async () => {
    const s = session();
    const first = await s.turn(CLAUDE, true);
    expect(first.message.content.map((b) => b.type)).toEqual(['thinking', 'tool_use']);
    const signed = first.message.content[0] as Anthropic.ThinkingBlock;

    const second = await s.turn(GPT);
    expect(second.message.content.map((b) => b.type)).toEqual(['tool_use']);
    expect(second.dropped).toEqual(expect.arrayContaining(['thinking', 'reasoning signed elsewhere (1)']));

    const third = await s.turn(CLAUDE, true);
    expect(third.message.content).toEqual([expect.objectContaining({ type: 'text', text: 'Sunny, and it is noon.' })]);
    expect(third.dropped).toContain('thinking');
    const sent = lastBody(emulators.anthropic);
    expect(sent.thinking).toBeUndefined();
    // Anthropic's own signed block went back to it untouched.
    expect(sent.messages[1].content[0]).toEqual({ type: 'thinking', thinking: signed.thinking, signature: signed.signature });

    s.messages.push({ role: 'user', content: 'And tomorrow?' });
    const fourth = await s.turn(CLAUDE);
    expect(fourth.message.content[0].type).toBe('thinking');
    expect(fourth.dropped).toEqual([]);
  });

  it("Anthropic -> Groq -> Anthropic: Groq's unsigned reasoning is shown but never replayed to Anthropic, and the Groq tool turn is answered without thinking", async () => {
    const s = session();
    await s.turn(CLAUDE);
    const second = await s.turn(GROQ, true);
    expect(second.message.content.map((b) => b.type)).toEqual(['thinking', 'tool_use']);
    expect((second.message.content[0] as Anthropic.ThinkingBlock).signature).toBe('');

    const third = await s.turn(CLAUDE);
    expect(third.message.content.map((b) => b.type)).toEqual(['text']);
    expect(third.dropped).toEqual(['thinking']);
    const sent = lastBody(emulators.anthropic);
    expect(sent.messages[3].content.map((b: { type: string }) => b.type)).toEqual(['tool_use']);
  });

  it("Anthropic -> Gemini 3 -> Anthropic: each provider gets only its own signatures back (the other's calls carry Gemini's skip value), and Gemini's sealed thinking never reaches Anthropic", async () => {
    const s = session();
    await s.turn(CLAUDE);
    const second = await s.turn(GEMINI_3, true);
    expect(second.dropped).toContain('reasoning signed elsewhere (1)');
    const toGemini = lastBody(emulators.google);
    expect(toGemini.contents[1].parts).toEqual([{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'skip_thought_signature_validator' }]);
    const geminiThinking = second.message.content[0] as Anthropic.ThinkingBlock;
    expect(geminiThinking.signature).toMatch(/^patchbay:google:EMU-SIG-/);

    const third = await s.turn(CLAUDE, true);
    expect(third.message.content.map((b) => b.type)).toEqual(['text']);
    expect(third.dropped).toEqual(expect.arrayContaining(['reasoning signed by google (1)', 'thinking']));
    expect(JSON.stringify(lastBody(emulators.anthropic))).not.toContain('EMU-SIG');
  });

  it('Gemini 3 -> Anthropic -> Gemini 3: Gemini gets its own signature back on its call and the skip value on the call Anthropic made', async () => {
    const s = session();
    const first = await s.turn(GEMINI_3);
    const signature = (first.message.content[0] as Anthropic.ThinkingBlock).signature;
    const second = await s.turn(CLAUDE);
    expect(second.dropped).toEqual(expect.arrayContaining(['reasoning signed by google (1)', 'thinking']));
    const third = await s.turn(GEMINI_3, true);
    expect(third.message.content.at(-1)).toMatchObject({ type: 'text', text: 'Sunny, and it is noon.' });
    const calls = (lastBody(emulators.google).contents as { role: string; parts: Record<string, unknown>[] }[]).filter((c) => c.role === 'model').map((c) => c.parts.find((p) => p.functionCall)!.thoughtSignature);
    expect(calls).toEqual([signature.replace('patchbay:google:', ''), 'skip_thought_signature_validator']);
  });
});

describe('/v1/responses: a Codex-shaped session with reasoning and tools moved A -> B -> A', () => {
  const tools: OpenAI.Responses.FunctionTool[] = ['get_weather', 'get_time'].map((name) => ({ type: 'function', name, description: name, strict: false, parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }));

  /** A streamed turn as a client reads it: the events to response.completed, with the response's headers. */
  async function streamed(params: OpenAI.Responses.ResponseCreateParamsNonStreaming): Promise<{ data: OpenAI.Responses.Response; response: Response }> {
    const { data: events, response } = await openai.responses.create({ ...params, stream: true }).withResponse();
    // output_text is the SDK's own convenience on create(); a streamed response object has only its items.
    const text = (r: OpenAI.Responses.Response) => r.output.flatMap((i) => (i.type === 'message' ? i.content.flatMap((c) => (c.type === 'output_text' ? [c.text] : [])) : [])).join('');
    for await (const event of events) if (event.type === 'response.completed') return { data: { ...event.response, output_text: text(event.response) }, response };
    throw new Error('the stream ended without response.completed');
  }

  function session() {
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: 'Weather and time in Paris?' }];
    return {
      input,
      async turn(model: string, stream = false) {
        const params: OpenAI.Responses.ResponseCreateParamsNonStreaming = { model, input, tools, store: false, reasoning: { effort: 'low', summary: 'auto' }, include: ['reasoning.encrypted_content'] };
        const { data, response } = stream ? await streamed(params) : await openai.responses.create(params).withResponse();
        // As Codex keeps them: the output items without their ids.
        for (const item of data.output) {
          const { id: _id, ...kept } = item as typeof item & { id?: string };
          input.push(kept as OpenAI.Responses.ResponseInputItem);
        }
        const call = data.output.find((item) => item.type === 'function_call');
        if (call) input.push({ type: 'function_call_output', call_id: call.call_id, output: call.name === 'get_weather' ? 'Sunny' : '12:00' });
        return { response: data, dropped: dropped(response) };
      },
    };
  }

  it("OpenAI -> Anthropic -> OpenAI: Anthropic leaves OpenAI's encrypted reasoning out, answers the OpenAI tool turn without thinking, and OpenAI gets its own reasoning back", async () => {
    const s = session();
    const first = await s.turn(GPT);
    expect(first.response.output.map((i) => i.type)).toEqual(['reasoning', 'function_call']);
    const second = await s.turn(CLAUDE, true);
    expect(second.response.output.map((i) => i.type)).toEqual(['function_call']);
    expect(second.dropped).toEqual(expect.arrayContaining(['reasoning signed elsewhere (1)', 'thinking']));
    const third = await s.turn(GPT);
    expect(third.response.output_text).toBe('Sunny, and it is noon.');
    const sent = lastBody(emulators.openai).input as { type?: string; encrypted_content?: string }[];
    expect(sent.filter((i) => i.type === 'reasoning').map((i) => i.encrypted_content)).toEqual([expect.stringMatching(/^gAAAA/)]);
  });

  it("Anthropic -> OpenAI -> Anthropic: Anthropic's thinking travels sealed in a reasoning item, OpenAI never sees it, and Anthropic gets it back as its own signed thinking", async () => {
    const s = session();
    const first = await s.turn(CLAUDE);
    const reasoning = first.response.output.find((i) => i.type === 'reasoning') as { encrypted_content?: string };
    expect(reasoning.encrypted_content).toMatch(/^patchbay:anthropic:/);
    const second = await s.turn(GPT, true);
    expect(second.dropped).toContain('reasoning signed by anthropic (1)');
    expect(JSON.stringify(lastBody(emulators.openai))).not.toContain('patchbay:');
    const third = await s.turn(CLAUDE);
    expect(third.response.output_text).toBe('Sunny, and it is noon.');
    expect(third.dropped).toEqual(expect.arrayContaining(['reasoning signed elsewhere (1)', 'thinking']));
    const sent = lastBody(emulators.anthropic);
    // The envelope carries the signed text beside the signature (encrypted_content: patchbay:anthropic:text:<text>:<signature>).
    const [, , , text, signature] = reasoning.encrypted_content!.split(':');
    expect(sent.messages[1].content[0]).toEqual({ type: 'thinking', thinking: Buffer.from(text, 'base64url').toString('utf8'), signature });
    expect((reasoning as { content?: { text: string }[] }).content?.[0].text).toBe(sent.messages[1].content[0].thinking);
  });

  it('Anthropic alone keeps thinking through the whole tool loop: its own signed thinking is replayed before each tool call it made', async () => {
    const s = session();
    await s.turn(CLAUDE);
    const second = await s.turn(CLAUDE, true);
    expect(second.response.output.map((i) => i.type)).toEqual(['reasoning', 'function_call']);
    expect(second.dropped).toEqual([]);
    const third = await s.turn(CLAUDE);
    expect(third.response.output.map((i) => i.type)).toEqual(['reasoning', 'message']);
    expect(lastBody(emulators.anthropic).thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
  });

  it('Anthropic -> Gemini 3 -> Anthropic: neither gets the other\'s sealed reasoning', async () => {
    const s = session();
    await s.turn(CLAUDE);
    const second = await s.turn(GEMINI_3);
    expect(second.dropped).toContain('reasoning signed by anthropic (1)');
    expect(lastBody(emulators.google).contents[1].parts[0].thoughtSignature).toBe('skip_thought_signature_validator');
    const third = await s.turn(CLAUDE, true);
    expect(third.response.output_text).toBe('Sunny, and it is noon.');
    expect(third.dropped).toEqual(expect.arrayContaining(['reasoning signed by google (1)', 'thinking']));
  });
});
