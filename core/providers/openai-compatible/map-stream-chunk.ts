import type { Usage } from '../provider-adapter.ts';
import { mapChatChoices } from './map-chat-choice.ts';
import { parseStreamData } from './parse-stream-data.ts';
import { quirksFor, type OpenAiQuirks } from './quirks.ts';

/** State carried across the chunks of one OpenAI-compatible stream. */
export interface PassThroughState {
  provider: string;
  quirks: OpenAiQuirks;
  /** Alternatives per token the client asked for (chat `top_logprobs`). */
  topLogprobs: number;
  includeUsage: boolean;
  usage: Usage | null;
  /** id/created/model of the stream, for a usage chunk Patchbay has to write itself. */
  id: string;
  created: number;
  model: string;
  object: string;
}

export interface PassThroughOptions {
  includeUsage: boolean;
  object: string;
  provider?: string;
  quirks?: OpenAiQuirks;
  topLogprobs?: number;
}

export function createPassThroughState(options: PassThroughOptions): PassThroughState {
  const provider = options.provider ?? 'upstream';
  return {
    provider,
    quirks: options.quirks ?? quirksFor(provider),
    topLogprobs: options.topLogprobs ?? 0,
    includeUsage: options.includeUsage,
    usage: null,
    id: '',
    created: 0,
    model: '',
    object: options.object,
  };
}

interface ChunkShape {
  id?: string;
  created?: number;
  model?: string;
  choices?: unknown[];
  usage?: Usage | null;
  x_groq?: { usage?: Usage };
}

/**
 * One upstream data payload in, the payloads to forward out. Usage is read wherever the upstream
 * puts it (OpenAI's final `choices: []` chunk, Groq's `x_groq.usage` and finish-chunk `usage`,
 * Together's finish chunk) and shown to the client only as OpenAI does: one final usage chunk,
 * and only when it asked. A chunk nothing had to change in is forwarded as the same string.
 * `x_groq` itself is kept (its request id helps with Groq support; OpenAI clients ignore
 * unknown fields); only its copy of the usage is removed.
 */
export function mapPassThroughChunk(data: string, state: PassThroughState): string[] {
  const chunk = parseStreamData<ChunkShape>(state.provider, data);
  if (!state.id && chunk.id) {
    state.id = chunk.id;
    state.created = chunk.created ?? Math.floor(Date.now() / 1000);
    state.model = chunk.model ?? '';
  }
  const usage = chunk.usage ?? chunk.x_groq?.usage ?? null;
  if (usage) state.usage = normalizeUsage(usage as Usage & Record<string, unknown>);
  if (Array.isArray(chunk.choices) && chunk.choices.length === 0) return [];
  let changed = mapChatChoices(chunk, state.quirks, state.topLogprobs);
  if (chunk.x_groq?.usage) {
    delete chunk.x_groq.usage;
    changed = true;
  }
  if (state.includeUsage) {
    if (chunk.usage !== null) {
      chunk.usage = null;
      changed = true;
    }
  } else if ('usage' in chunk) {
    // The common case (OpenAI answering include_usage Patchbay asked for): cut the member out of
    // the text rather than re-serialising every chunk.
    const trimmed = !changed && chunk.usage === null ? removeNullUsage(data) : undefined;
    if (trimmed !== undefined) return [trimmed];
    delete chunk.usage;
    changed = true;
  }
  return [changed ? JSON.stringify(chunk) : data];
}

/** The usage chunk OpenAI sends last when the client set stream_options.include_usage. */
export function finishPassThrough(state: PassThroughState): string[] {
  if (!state.includeUsage || !state.usage) return [];
  return [JSON.stringify({ id: state.id, object: state.object, created: state.created, model: state.model, choices: [], usage: state.usage })];
}

const USAGE_KEY = '"usage"';

/**
 * Removes a top-level `"usage":null` member from compact JSON text, or answers undefined when
 * that cannot be done safely. Inside JSON strings every quote is escaped, so an unescaped
 * `"usage"` is a key or a string value; when it occurs exactly once and the chunk's top-level
 * usage is null, that occurrence is the member.
 */
export function removeNullUsage(data: string): string | undefined {
  const at = data.indexOf(USAGE_KEY);
  if (at < 0 || data.indexOf(USAGE_KEY, at + 1) >= 0) return undefined;
  const member = `${USAGE_KEY}:null`;
  if (!data.startsWith(member, at)) return undefined;
  const end = at + member.length;
  if (data[at - 1] === ',') return data.slice(0, at - 1) + data.slice(end);
  if (data[end] === ',') return data.slice(0, at) + data.slice(end + 1);
  return undefined;
}

export function normalizeUsage(usage: Partial<Usage> & Record<string, unknown>): Usage {
  const prompt = Number(usage.prompt_tokens ?? 0);
  const completion = Number(usage.completion_tokens ?? 0);
  return { ...usage, prompt_tokens: prompt, completion_tokens: completion, total_tokens: Number(usage.total_tokens ?? prompt + completion) };
}
