import type { Usage } from '../provider-adapter.ts';

/** State carried across the chunks of one OpenAI-compatible stream. */
export interface PassThroughState {
  includeUsage: boolean;
  usage: Usage | null;
  /** id/created/model of the stream, for a usage chunk Patchbay has to write itself. */
  id: string;
  created: number;
  model: string;
  object: string;
}

export function createPassThroughState(includeUsage: boolean, object: string): PassThroughState {
  return { includeUsage, usage: null, id: '', created: 0, model: '', object };
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
 * puts it (OpenAI's final `choices: []` chunk, Groq's `x_groq.usage`, Together's last chunk) and
 * shown to the client only as OpenAI does: one final usage chunk, and only when it asked.
 */
export function mapPassThroughChunk(data: string, state: PassThroughState): string[] {
  const chunk = JSON.parse(data) as ChunkShape;
  if (!state.id && chunk.id) {
    state.id = chunk.id;
    state.created = chunk.created ?? Math.floor(Date.now() / 1000);
    state.model = chunk.model ?? '';
  }
  const usage = chunk.usage ?? chunk.x_groq?.usage ?? null;
  if (usage) state.usage = normalizeUsage(usage as Usage & Record<string, unknown>);
  const isUsageOnly = Array.isArray(chunk.choices) && chunk.choices.length === 0;
  if (isUsageOnly) return [];
  let changed = false;
  if ('usage' in chunk) {
    if (state.includeUsage) {
      if (chunk.usage !== null) {
        chunk.usage = null;
        changed = true;
      }
    } else {
      delete chunk.usage;
      changed = true;
    }
  } else if (state.includeUsage) {
    chunk.usage = null;
    changed = true;
  }
  if (chunk.x_groq?.usage) {
    delete chunk.x_groq.usage;
    changed = true;
  }
  return [changed ? JSON.stringify(chunk) : data];
}

/** The usage chunk OpenAI sends last when the client set stream_options.include_usage. */
export function finishPassThrough(state: PassThroughState): string[] {
  if (!state.includeUsage || !state.usage) return [];
  return [JSON.stringify({ id: state.id, object: state.object, created: state.created, model: state.model, choices: [], usage: state.usage })];
}

export function normalizeUsage(usage: Partial<Usage> & Record<string, unknown>): Usage {
  const prompt = Number(usage.prompt_tokens ?? 0);
  const completion = Number(usage.completion_tokens ?? 0);
  return { ...usage, prompt_tokens: prompt, completion_tokens: completion, total_tokens: Number(usage.total_tokens ?? prompt + completion) };
}
