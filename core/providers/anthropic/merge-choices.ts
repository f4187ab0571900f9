import type { ChatCompletion, ChatCompletionChunk, ChatUsage } from '../../protocols/openai/chat-types.ts';

/**
 * Anthropic has no `n`: an n > 1 request is sent as n requests of one choice each, and their
 * answers are merged here into one OpenAI answer with choices 0..n-1 and the usage of all n.
 */

/** n one-choice completions -> one completion; id, created and model are the first's. */
export function mergeCompletions(completions: ChatCompletion[]): ChatCompletion {
  if (completions.length === 1) return completions[0];
  return {
    ...completions[0],
    choices: completions.map((completion, i) => ({ ...completion.choices[0], index: i })),
    usage: sumUsage(completions.map((c) => c.usage).filter((u): u is ChatUsage => u !== undefined)),
  };
}

/** A stream of OpenAI chunk objects with the usage it has seen so far. */
export interface ChunkStream {
  chunks: AsyncIterator<ChatCompletionChunk>;
  usage(): ChatUsage | null;
}

/**
 * n one-choice streams (opened without usage chunks) -> one stream whose chunks carry choice
 * index i for stream i, interleaved as they arrive, all under one id (the first chunk's, as
 * OpenAI's n > 1 streams share one id). When `includeUsage` is set, every chunk carries
 * `usage: null` and a last `choices: []` chunk the usage of all n. The first failing stream ends
 * the merged one with its error. `close` runs when the merged stream ends for any reason,
 * including the consumer stopping early, so the other requests do not run on unread.
 */
export function mergeChunkStreams(streams: ChunkStream[], includeUsage: boolean, close: () => void): ChunkStream {
  const usage = (): ChatUsage | null => {
    const known = streams.map((s) => s.usage()).filter((u): u is ChatUsage => u !== null);
    return known.length === 0 ? null : sumUsage(known);
  };
  async function* merged(): AsyncGenerator<ChatCompletionChunk> {
    let head: Pick<ChatCompletionChunk, 'id' | 'created' | 'model'> | undefined;
    const pending = new Map<number, Promise<{ i: number; result: IteratorResult<ChatCompletionChunk> }>>();
    const pull = (i: number) => pending.set(i, streams[i].chunks.next().then((result) => ({ i, result })));
    streams.forEach((_, i) => pull(i));
    try {
      while (pending.size > 0) {
        const { i, result } = await Promise.race(pending.values());
        if (result.done) {
          pending.delete(i);
          continue;
        }
        pull(i);
        head ??= { id: result.value.id, created: result.value.created, model: result.value.model };
        const { usage: _dropped, ...chunk } = result.value;
        yield { ...chunk, ...head, choices: chunk.choices.map((c) => ({ ...c, index: i })), ...(includeUsage ? { usage: null } : {}) };
      }
      if (includeUsage && head) yield { id: head.id, object: 'chat.completion.chunk', created: head.created, model: head.model, choices: [], usage: usage() };
    } finally {
      // Reads still in flight fail once `close` aborts their requests; nobody waits for them.
      for (const read of pending.values()) read.catch(() => undefined);
      close();
    }
  }
  return { chunks: merged(), usage };
}

/** Adds usages, for the n requests behind one n > 1 answer. */
export function sumUsage(usages: ChatUsage[]): ChatUsage {
  const sum: ChatUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, prompt_tokens_details: { cached_tokens: 0 } };
  for (const usage of usages) {
    sum.prompt_tokens += usage.prompt_tokens;
    sum.completion_tokens += usage.completion_tokens;
    sum.total_tokens += usage.total_tokens;
    sum.prompt_tokens_details.cached_tokens += usage.prompt_tokens_details.cached_tokens;
    if (usage.completion_tokens_details) {
      sum.completion_tokens_details = { reasoning_tokens: (sum.completion_tokens_details?.reasoning_tokens ?? 0) + usage.completion_tokens_details.reasoning_tokens };
    }
  }
  return sum;
}
