import type { CompletionRequest } from '../../protocols/openai/request-schemas.ts';
import type { Usage } from '../provider-adapter.ts';
import { mapFinishReason } from './map-chat-choice.ts';
import type { TogetherLogprobs } from './map-chat-logprobs.ts';
import { characterCount, mapTogetherCompletionLogprobs, type OpenAiCompletionLogprobs } from './map-completion-logprobs.ts';
import { normalizeUsage } from './map-stream-chunk.ts';
import { addUsage, type OpenAiCompletionChoice } from './merge-completion-answers.ts';
import { parseStreamData } from './parse-stream-data.ts';
import type { OpenAiQuirks } from './quirks.ts';

/** Together's completions stream chunk (§5.3). */
interface TogetherCompletionChunk {
  id?: string;
  created?: number;
  model?: string;
  choices?: { index?: number; text?: string; finish_reason?: string | null; logprobs?: number | TogetherLogprobs | null; delta?: { content?: string | null } }[];
  token?: { text?: string; logprob?: number | null };
  finish_reason?: string | null;
  usage?: Partial<Usage> | null;
}

/** State of one client stream made of the upstream streams of each prompt, in turn. */
export interface CompletionStreamState {
  provider: string;
  quirks: OpenAiQuirks;
  includeUsage: boolean;
  n: number;
  echo: boolean;
  logprobs: boolean;
  /** The first upstream stream's id/created/model, kept for every chunk of the merged stream. */
  id: string;
  created: number;
  model: string;
  /** Characters generated so far per choice index, for `text_offset` and echo. */
  generated: Map<number, number>;
  /** Usage the current prompt's stream reported last, and the sum over finished prompts. */
  promptUsage: Usage | null;
  usage: Usage | null;
}

export function createCompletionStreamState(request: CompletionRequest, quirks: OpenAiQuirks, includeUsage: boolean, provider: string): CompletionStreamState {
  return {
    provider,
    quirks,
    includeUsage,
    n: request.n ?? 1,
    echo: request.echo === true,
    logprobs: request.logprobs != null,
    id: '',
    created: 0,
    model: request.model,
    generated: new Map(),
    promptUsage: null,
    usage: null,
  };
}

/**
 * A Together `completion.chunk` to OpenAI's `text_completion` chunk (§1.5): choices
 * `{text, index, logprobs, finish_reason}` only. Together's `delta`, `token` and top-level
 * `finish_reason` repeat what the choice says (or are Together's own) and are not forwarded.
 */
export function mapCompletionChunk(data: string, state: CompletionStreamState, promptIndex: number, prompt: string): string[] {
  const chunk = parseStreamData<TogetherCompletionChunk>(state.provider, data);
  if (!state.id) {
    state.id = chunk.id ?? '';
    state.created = chunk.created ?? Math.floor(Date.now() / 1000);
    state.model = chunk.model ?? state.model;
  }
  if (chunk.usage) state.promptUsage = normalizeUsage(chunk.usage as Partial<Usage> & Record<string, unknown>);
  const upstream = chunk.choices ?? [];
  if (upstream.length === 0) return [];
  const single = upstream.length === 1;
  const choices = upstream.map((choice, i): OpenAiCompletionChoice => {
    const index = promptIndex * state.n + (choice.index ?? i);
    const token = choice.text ?? choice.delta?.content ?? (single ? chunk.token?.text : undefined) ?? '';
    const before = state.generated.get(index);
    const promptLength = characterCount(prompt);
    state.generated.set(index, (before ?? 0) + characterCount(token));
    const reason = choice.finish_reason ?? (single ? chunk.finish_reason : null) ?? null;
    return {
      text: state.echo && before === undefined ? prompt + token : token,
      index,
      logprobs: state.logprobs ? chunkLogprobs(choice.logprobs, single ? chunk.token?.logprob : undefined, token, promptLength + (before ?? 0)) : null,
      finish_reason: reason ? mapFinishReason(reason, state.quirks) : null,
    };
  });
  return [JSON.stringify({ id: state.id, object: 'text_completion', created: state.created, model: state.model, choices, ...(state.includeUsage ? { usage: null } : {}) })];
}

/** Called when a prompt's upstream stream has ended: its usage joins the total. */
export function finishPromptStream(state: CompletionStreamState): void {
  state.usage = addUsage(state.usage, state.promptUsage);
  state.promptUsage = null;
}

/** The final usage chunk, when the client asked for it. */
export function finishCompletionStream(state: CompletionStreamState): string[] {
  if (!state.includeUsage || !state.usage) return [];
  return [JSON.stringify({ id: state.id, object: 'text_completion', created: state.created, model: state.model, choices: [], usage: state.usage })];
}

/** Usage so far: finished prompts plus what the current one reported. */
export function streamedUsage(state: CompletionStreamState): Usage | null {
  return addUsage(state.usage, state.promptUsage);
}

/**
 * A streamed token's logprobs: Together sends the sampled token's log probability (on the choice
 * or on the chunk's `token`) but no alternatives, so `top_logprobs` lists the sampled token only,
 * which OpenAI's list always contains.
 */
function chunkLogprobs(value: number | TogetherLogprobs | null | undefined, tokenLogprob: number | null | undefined, token: string, offset: number): OpenAiCompletionLogprobs | null {
  if (value && typeof value === 'object') return mapTogetherCompletionLogprobs(value, offset);
  const logprob = typeof value === 'number' ? value : tokenLogprob;
  if (logprob == null || token === '') return null;
  return { tokens: [token], token_logprobs: [logprob], top_logprobs: [{ [token]: logprob }], text_offset: [offset] };
}
