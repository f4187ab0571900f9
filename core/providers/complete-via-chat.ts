import { InvalidRequestError } from '../errors/patchbay-error.ts';
import type { ChatRequest, CompletionRequest } from '../protocols/openai/request-schemas.ts';
import type { JsonReply, ProviderAdapter, StreamReply, UpstreamCall, Usage } from './provider-adapter.ts';

/**
 * Legacy /v1/completions for upstreams that only chat: one chat generation per prompt element,
 * the prompt as the user's message, max_tokens defaulting to 16 as OpenAI's completions do.
 * Log probabilities cannot be produced this way, so routing never sends `logprobs`/`best_of` here
 * (endpoints without the logprobs capability are ineligible); `echo` and `suffix` are refused.
 */
export function toChatRequests(request: CompletionRequest): ChatRequest[] {
  if (request.echo) throw new InvalidRequestError("'echo' is only available on models with a native completions endpoint (e.g. openai/gpt-3.5-turbo-instruct).", 'echo');
  if (request.suffix) throw new InvalidRequestError("'suffix' is only available on models with a native completions endpoint.", 'suffix');
  const prompts = typeof request.prompt === 'string' ? [request.prompt] : request.prompt;
  if (!prompts.every((p): p is string => typeof p === 'string')) {
    throw new InvalidRequestError("Token-id prompts need a model with a native completions endpoint; send the prompt as text.", 'prompt');
  }
  return prompts.map((prompt) => ({
    model: request.model,
    messages: [{ role: 'user' as const, content: prompt }],
    max_tokens: Math.max(1, request.max_tokens ?? 16),
    temperature: request.temperature,
    top_p: request.top_p,
    n: request.n,
    stop: request.stop,
    presence_penalty: request.presence_penalty,
    frequency_penalty: request.frequency_penalty,
    seed: request.seed,
    user: request.user,
  }));
}

interface ChatCompletionShape {
  id: string;
  created: number;
  model: string;
  choices: { index: number; message: { content: string | null }; finish_reason: string }[];
  usage?: Usage;
}

function addUsage(total: Usage, usage: Usage | null | undefined): void {
  if (!usage) return;
  total.prompt_tokens += usage.prompt_tokens;
  total.completion_tokens += usage.completion_tokens;
  total.total_tokens += usage.total_tokens;
}

export async function completeViaChat(adapter: ProviderAdapter, request: CompletionRequest, call: UpstreamCall): Promise<JsonReply> {
  const chats = toChatRequests(request);
  const n = request.n ?? 1;
  const replies = await Promise.all(chats.map((chat) => adapter.chat(chat, call)));
  const usage: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  const choices: unknown[] = [];
  let first: ChatCompletionShape | undefined;
  replies.forEach((reply, promptIndex) => {
    const parsed = JSON.parse(reply.body) as ChatCompletionShape;
    first ??= parsed;
    addUsage(usage, reply.usage);
    for (const choice of parsed.choices) {
      choices.push({ text: choice.message.content ?? '', index: promptIndex * n + choice.index, logprobs: null, finish_reason: choice.finish_reason });
    }
  });
  const body = {
    id: `cmpl-${first!.id}`,
    object: 'text_completion',
    created: first!.created,
    model: first!.model,
    choices,
    usage,
  };
  return { body: JSON.stringify(body), usage };
}

interface ChatChunkShape {
  id: string;
  created: number;
  model: string;
  choices: { index: number; delta: { content?: string | null }; finish_reason: string | null }[];
}

/** Streams each prompt's chat stream in turn, re-shaped as text_completion chunks. */
export async function streamCompleteViaChat(adapter: ProviderAdapter, request: CompletionRequest, call: UpstreamCall, includeUsage: boolean): Promise<StreamReply> {
  const chats = toChatRequests(request);
  const n = request.n ?? 1;
  const usage: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  // Open the first stream now, so a failure before any byte can still fall back elsewhere.
  const firstStream = await adapter.streamChat(chats[0], call, true);
  let meta: { id: string; created: number; model: string } | undefined;
  async function* chunks(): AsyncGenerator<string> {
    for (let promptIndex = 0; promptIndex < chats.length; promptIndex++) {
      const stream = promptIndex === 0 ? firstStream : await adapter.streamChat(chats[promptIndex], call, true);
      for (let next = await stream.chunks.next(); !next.done; next = await stream.chunks.next()) {
        const chunk = JSON.parse(next.value) as ChatChunkShape;
        meta ??= { id: `cmpl-${chunk.id}`, created: chunk.created, model: chunk.model };
        const choices = (chunk.choices ?? [])
          .filter((c) => (c.delta?.content ?? '') !== '' || c.finish_reason)
          .map((c) => ({ text: c.delta?.content ?? '', index: promptIndex * n + c.index, logprobs: null, finish_reason: c.finish_reason ?? null }));
        if (choices.length === 0) continue;
        yield JSON.stringify({ id: meta.id, object: 'text_completion', created: meta.created, model: meta.model, choices, ...(includeUsage ? { usage: null } : {}) });
      }
      addUsage(usage, stream.usage());
    }
    if (includeUsage && meta) yield JSON.stringify({ id: meta.id, object: 'text_completion', created: meta.created, model: meta.model, choices: [], usage });
  }
  return { chunks: chunks(), usage: () => usage };
}
