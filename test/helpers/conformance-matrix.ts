import type OpenAI from 'openai';
import { expect, vi } from 'vitest';
import { AnthropicEmulator } from '../emulators/anthropic-emulator.ts';
import type { EmulatorServer } from '../emulators/emulator-server.ts';
import { GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { TogetherEmulator } from '../emulators/together-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from './start-patchbay.ts';

/**
 * Shared pieces of the conformance matrix (test/integration/conformance-*.test.ts): the five
 * providers behind their emulators, what each one serves, and checks of OpenAI's response and
 * chunk shapes that hold whatever the provider. The emulators answer the same conversation with
 * the same text, tool arguments and token counts, so one expectation fits every provider.
 */

export type ProviderName = 'openai' | 'anthropic' | 'google' | 'groq' | 'together';

export interface ProviderCase {
  name: ProviderName;
  /** Provider-pinned chat model, and the upstream model id it is served by (the usage row's `model`). */
  chat: string;
  servedChat: string;
  /** Catalog capabilities of that chat endpoint that the matrix varies. */
  n: boolean;
  images: boolean;
  /** Anthropic has no `n`: Patchbay sends n requests, so the prompt is billed n times. */
  promptBilledPerChoice: boolean;
  completion: string;
  servedCompletion: string;
  /** A native /completions upstream (else Patchbay completes through chat). */
  nativeCompletions: boolean;
  logprobs: boolean;
  embedding: { model: string; served: string; dimensions: number; shortenable: boolean; upstreamUsage: boolean } | null;
}

export const PROVIDERS: ProviderCase[] = [
  {
    name: 'openai',
    chat: 'openai/gpt-4o',
    servedChat: 'gpt-4o',
    n: true,
    images: true,
    promptBilledPerChoice: false,
    completion: 'openai/gpt-3.5-turbo-instruct',
    servedCompletion: 'gpt-3.5-turbo-instruct',
    nativeCompletions: true,
    logprobs: true,
    embedding: { model: 'text-embedding-3-small', served: 'text-embedding-3-small', dimensions: 1536, shortenable: true, upstreamUsage: true },
  },
  {
    name: 'anthropic',
    chat: 'anthropic/claude-haiku-4-5-20251001',
    servedChat: 'claude-haiku-4-5-20251001',
    n: true,
    images: true,
    promptBilledPerChoice: true,
    completion: 'anthropic/claude-haiku-4-5-20251001',
    servedCompletion: 'claude-haiku-4-5-20251001',
    nativeCompletions: false,
    logprobs: false,
    embedding: null,
  },
  {
    name: 'google',
    chat: 'google/gemini-2.5-flash',
    servedChat: 'gemini-2.5-flash',
    n: true,
    images: true,
    promptBilledPerChoice: false,
    completion: 'google/gemini-2.5-flash',
    servedCompletion: 'gemini-2.5-flash',
    nativeCompletions: false,
    logprobs: false,
    embedding: { model: 'gemini-embedding-001', served: 'gemini-embedding-001', dimensions: 3072, shortenable: true, upstreamUsage: false },
  },
  {
    name: 'groq',
    chat: 'groq/llama-3.3-70b-versatile',
    servedChat: 'llama-3.3-70b-versatile',
    n: false,
    images: false,
    promptBilledPerChoice: false,
    completion: 'groq/llama-3.3-70b-versatile',
    servedCompletion: 'llama-3.3-70b-versatile',
    nativeCompletions: false,
    logprobs: false,
    embedding: null,
  },
  {
    name: 'together',
    chat: 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo',
    servedChat: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    n: true,
    images: false,
    promptBilledPerChoice: false,
    completion: 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo',
    servedCompletion: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    nativeCompletions: true,
    logprobs: true,
    embedding: { model: 'bge-base-en-v1.5', served: 'BAAI/bge-base-en-v1.5', dimensions: 768, shortenable: false, upstreamUsage: false },
  },
];

export const provider = (name: ProviderName): ProviderCase => PROVIDERS.find((p) => p.name === name)!;

/** How a request is answered: one JSON body, or a stream with or without `stream_options.include_usage`. */
export type Mode = 'json' | 'stream' | 'stream+usage';
export const MODES: Mode[] = ['json', 'stream', 'stream+usage'];

export interface Rig {
  pb: TestPatchbay;
  client: OpenAI;
  emulators: Record<ProviderName, EmulatorServer>;
  stop(): Promise<void>;
}

const KEYS: Record<ProviderName, string> = {
  openai: 'sk-conformance-openai',
  anthropic: 'sk-ant-conformance',
  google: 'AIza-conformance-gemini',
  groq: 'gsk_conformance',
  together: 'tgp_v1_conformance',
};

/** The five emulators and one Patchbay pointed at them (start once per file). */
export async function startRig(): Promise<Rig> {
  const emulators: Record<ProviderName, EmulatorServer> = {
    openai: new OpenAiEmulator({ apiKey: KEYS.openai }),
    anthropic: new AnthropicEmulator({ apiKey: KEYS.anthropic }),
    google: new GeminiEmulator({ apiKey: KEYS.google }),
    groq: new GroqEmulator({ apiKey: KEYS.groq }),
    together: new TogetherEmulator({ apiKey: KEYS.together }),
  };
  const [openai, anthropic, google, groq, together] = await Promise.all(PROVIDERS.map((p) => emulators[p.name].start()));
  const pb = await startPatchbay({
    config: {
      providers: {
        openai: { baseUrl: `${openai}/v1` },
        anthropic: { baseUrl: `${anthropic}/v1` },
        google: { baseUrl: `${google}/v1beta` },
        groq: { baseUrl: `${groq}/openai/v1` },
        together: { baseUrl: `${together}/v1` },
      },
    },
    env: {
      OPENAI_API_KEY: KEYS.openai,
      ANTHROPIC_API_KEY: KEYS.anthropic,
      GEMINI_API_KEY: KEYS.google,
      GROQ_API_KEY: KEYS.groq,
      TOGETHER_API_KEY: KEYS.together,
    },
    // The models each provider lists (Claude Code's and Codex's newest defaults among them) are known before the first request.
    discovery: true,
  });
  return {
    pb,
    client: pb.client,
    emulators,
    async stop() {
      await pb.stop();
      await Promise.all(Object.values(emulators).map((e) => e.close()));
    },
  };
}

/** The usage rows written since `before`, once there are `count` of them (a row is written as the response ends). */
export async function newUsageRows(pb: TestPatchbay, before: number, count = 1): Promise<Record<string, unknown>[]> {
  return vi.waitFor(
    () => {
      const rows = usageRows(pb.patchbay).slice(before);
      expect(rows.length).toBeGreaterThanOrEqual(count);
      return rows;
    },
    { timeout: 60_000, interval: 5 },
  );
}

export const usageRowCount = (pb: TestPatchbay): number => usageRows(pb.patchbay).length;

/** A 400 the client sees for a request Patchbay refuses, naming the parameter. */
export async function expectBadRequest(promise: Promise<unknown>, param: string): Promise<Error & { status: number; param: string }> {
  const error = (await promise.then(
    () => new Error('expected a 400, the request succeeded'),
    (e: unknown) => e,
  )) as Error & { status: number; param: string };
  expect(error).toMatchObject({ status: 400, param });
  expect(error.message).toContain(param);
  return error;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** One choice of a chat answer, the same whether it came as one JSON body or was assembled from chunks. */
export interface ChatChoice {
  index: number;
  role: string | undefined;
  content: string | null;
  tool_calls: { id: string; type: string; name: string; arguments: string }[] | undefined;
  finish_reason: string | null;
}

export interface ChatResult {
  id: string;
  model: string;
  choices: ChatChoice[];
  /** The answer's usage; undefined for a stream without include_usage (where no chunk may carry one). */
  usage: Usage | undefined;
}

type Chunk = OpenAI.Chat.ChatCompletionChunk;
type ChatParams = Omit<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, 'stream' | 'stream_options'>;

/** Sends a chat request in the given mode through the SDK and checks the response's OpenAI shape. */
export async function runChat(client: OpenAI, params: ChatParams, mode: Mode): Promise<ChatResult> {
  if (mode === 'json') {
    const completion = await client.chat.completions.create(params);
    return checkCompletion(completion);
  }
  const stream = await client.chat.completions.create({ ...params, stream: true, ...(mode === 'stream+usage' ? { stream_options: { include_usage: true } } : {}) });
  const chunks: Chunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return assembleChunks(chunks, mode === 'stream+usage');
}

function checkCompletion(completion: OpenAI.Chat.ChatCompletion): ChatResult {
  expect(completion.object).toBe('chat.completion');
  expect(completion.id).toEqual(expect.any(String));
  expect(completion.created).toEqual(expect.any(Number));
  expect(completion.model).toEqual(expect.stringMatching(/./));
  expect(completion.choices.map((c) => c.index)).toEqual(completion.choices.map((_, i) => i));
  const choices = completion.choices.map((c): ChatChoice => {
    const calls = c.message.tool_calls;
    return {
      index: c.index,
      role: c.message.role,
      content: c.message.content,
      tool_calls: calls?.map((t) => {
        expect(Object.keys(t).sort()).toEqual(['function', 'id', 'type']);
        const fn = (t as OpenAI.Chat.ChatCompletionMessageFunctionToolCall).function;
        return { id: t.id, type: t.type, name: fn.name, arguments: fn.arguments };
      }),
      finish_reason: c.finish_reason,
    };
  });
  return { id: completion.id, model: completion.model, choices, usage: completion.usage };
}

/**
 * Checks every chunk of a chat stream and assembles the answer: one id, object and model throughout;
 * per choice the first chunk carries the role, exactly one carries a finish_reason (the last for that
 * choice), tool-call fragments carry `index` with id, type and name on the first only; with
 * include_usage the last chunk has `choices: []` and the usage and all others `usage: null`,
 * without it no chunk has a `usage` key.
 */
export function assembleChunks(chunks: Chunk[], includeUsage: boolean): ChatResult {
  expect(chunks.length).toBeGreaterThan(0);
  const { id, model } = chunks[0];
  for (const chunk of chunks) {
    expect(chunk).toMatchObject({ id, object: 'chat.completion.chunk', created: expect.any(Number) });
    expect(chunk.model).toEqual(expect.stringMatching(/./));
  }
  let usage: Usage | undefined;
  let body = chunks;
  if (includeUsage) {
    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual(expect.objectContaining({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), total_tokens: expect.any(Number) }));
    usage = last.usage!;
    body = chunks.slice(0, -1);
    expect(body.map((c) => c.usage)).toEqual(body.map(() => null));
  } else {
    expect(chunks.filter((c) => 'usage' in c)).toEqual([]);
  }
  for (const chunk of body) expect(chunk.choices.length).toBeGreaterThan(0);

  const byIndex = new Map<number, Chunk['choices'][number][]>();
  for (const chunk of body) for (const choice of chunk.choices) byIndex.set(choice.index, [...(byIndex.get(choice.index) ?? []), choice]);
  const indexes = [...byIndex.keys()].sort((a, b) => a - b);
  expect(indexes).toEqual(indexes.map((_, i) => i));
  const choices = indexes.map((index): ChatChoice => {
    const parts = byIndex.get(index)!;
    expect(parts[0].delta.role, `choice ${index}: the first chunk carries the role`).toBe('assistant');
    const finishes = parts.filter((p) => p.finish_reason != null);
    expect(finishes, `choice ${index}: exactly one chunk has a finish_reason`).toHaveLength(1);
    expect(parts[parts.length - 1].finish_reason, `choice ${index}: the finish_reason comes last`).not.toBeNull();
    const texts = parts.map((p) => p.delta.content).filter((c): c is string => typeof c === 'string');
    const calls: NonNullable<ChatChoice['tool_calls']> = [];
    for (const delta of parts.flatMap((p) => p.delta.tool_calls ?? [])) {
      expect(delta.index, 'a tool-call delta carries its index').toEqual(expect.any(Number));
      const call = calls[delta.index];
      if (!call) {
        expect(delta.index).toBe(calls.length);
        expect(delta, 'the first fragment of a tool call has its id, type and name').toMatchObject({ id: expect.stringMatching(/./), type: 'function', function: { name: expect.stringMatching(/./) } });
        calls.push({ id: delta.id!, type: delta.type!, name: delta.function!.name!, arguments: delta.function?.arguments ?? '' });
      } else {
        expect(delta.id ?? call.id).toBe(call.id);
        expect(delta.function?.name, 'later fragments do not repeat the name').toBeUndefined();
        call.arguments += delta.function?.arguments ?? '';
      }
    }
    return {
      index,
      role: parts[0].delta.role,
      content: texts.length > 0 && texts.join('') !== '' ? texts.join('') : calls.length > 0 ? null : texts.join(''),
      tool_calls: calls.length > 0 ? calls : undefined,
      finish_reason: finishes[0]?.finish_reason ?? null,
    };
  });
  return { id, model, choices, usage };
}

/** One choice of a legacy completion, from a JSON body or assembled from its chunks. */
export interface CompletionResult {
  choices: { index: number; text: string; finish_reason: string | null }[];
  usage: Usage | undefined;
}

type CompletionParams = Omit<OpenAI.CompletionCreateParamsNonStreaming, 'stream' | 'stream_options'>;

export async function runCompletion(client: OpenAI, params: CompletionParams, mode: Mode): Promise<CompletionResult> {
  if (mode === 'json') {
    const completion = await client.completions.create(params);
    expect(completion.object).toBe('text_completion');
    expect(completion.id).toEqual(expect.any(String));
    expect(completion.model).toEqual(expect.stringMatching(/./));
    return { choices: completion.choices.map((c) => ({ index: c.index, text: c.text, finish_reason: c.finish_reason })), usage: completion.usage };
  }
  const stream = await client.completions.create({ ...params, stream: true, ...(mode === 'stream+usage' ? { stream_options: { include_usage: true } } : {}) });
  const chunks: OpenAI.Completion[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  expect(chunks.length).toBeGreaterThan(0);
  const { id } = chunks[0];
  for (const chunk of chunks) {
    expect(chunk).toMatchObject({ id, object: 'text_completion', created: expect.any(Number) });
    expect(chunk.model).toEqual(expect.stringMatching(/./));
  }
  let usage: Usage | undefined;
  let body = chunks;
  if (mode === 'stream+usage') {
    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    usage = last.usage!;
    expect(usage).toEqual(expect.objectContaining({ prompt_tokens: expect.any(Number) }));
    body = chunks.slice(0, -1);
    expect(body.map((c) => c.usage)).toEqual(body.map(() => null));
  } else {
    expect(chunks.filter((c) => 'usage' in c)).toEqual([]);
  }
  for (const chunk of body) expect(chunk.choices.length).toBeGreaterThan(0);
  const byIndex = new Map<number, OpenAI.CompletionChoice[]>();
  for (const chunk of body) for (const choice of chunk.choices) byIndex.set(choice.index, [...(byIndex.get(choice.index) ?? []), choice]);
  const indexes = [...byIndex.keys()].sort((a, b) => a - b);
  const choices = indexes.map((index) => {
    const parts = byIndex.get(index)!;
    const finishes = parts.filter((p) => p.finish_reason != null);
    expect(finishes, `choice ${index}: exactly one chunk has a finish_reason`).toHaveLength(1);
    expect(parts[parts.length - 1].finish_reason, `choice ${index}: the finish_reason comes last`).not.toBeNull();
    return { index, text: parts.map((p) => p.text).join(''), finish_reason: finishes[0]?.finish_reason ?? null };
  });
  return { choices, usage };
}
