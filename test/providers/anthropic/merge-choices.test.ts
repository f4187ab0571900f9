import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../../core/errors/provider-error.ts';
import { mergeChunkStreams, mergeCompletions, type ChunkStream } from '../../../core/providers/anthropic/merge-choices.ts';
import type { ChatCompletion, ChatCompletionChunk, ChatUsage } from '../../../core/protocols/openai/chat-types.ts';

const usage = (prompt: number, completion: number, cached = 0): ChatUsage => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: cached },
});

const completion = (id: string, content: string, u: ChatUsage): ChatCompletion => ({
  id,
  object: 'chat.completion',
  created: 1,
  model: 'claude-sonnet-4-5-20250929',
  choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
  usage: u,
});

describe('mergeCompletions', () => {
  it('numbers the choices 0..n-1, keeps the first id and sums the usage', () => {
    const merged = mergeCompletions([completion('msg_a', 'one', usage(10, 5, 4)), completion('msg_b', 'two', usage(10, 7, 4)), completion('msg_c', 'three', usage(10, 1))]);
    expect(merged.id).toBe('msg_a');
    expect(merged.choices.map((c) => [c.index, c.message.content])).toEqual([
      [0, 'one'],
      [1, 'two'],
      [2, 'three'],
    ]);
    expect(merged.usage).toEqual(usage(30, 13, 8));
  });

  it('returns a single completion unchanged', () => {
    const single = completion('msg_a', 'one', usage(1, 1));
    expect(mergeCompletions([single])).toBe(single);
  });
});

const chunk = (id: string, delta: ChatCompletionChunk['choices'][number]['delta'], finish: 'stop' | null = null): ChatCompletionChunk => ({
  id,
  object: 'chat.completion.chunk',
  created: 1,
  model: 'claude-sonnet-4-5-20250929',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
});

/** An in-memory stand-in for one Anthropic stream already mapped to chunks: yields with a pause between chunks, then maybe fails. */
function fakeStream(id: string, texts: string[], pauseMs: number, u: ChatUsage, failAfter?: number): ChunkStream {
  let done = false;
  async function* chunks(): AsyncGenerator<ChatCompletionChunk> {
    yield chunk(id, { role: 'assistant', content: '' });
    for (const [i, text] of texts.entries()) {
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      if (failAfter === i) throw new ProviderError({ provider: 'anthropic', upstreamStatus: 529, message: 'overloaded_error: Overloaded', retryable: true, kind: 'stream' });
      yield chunk(id, { content: text });
    }
    yield chunk(id, {}, 'stop');
    done = true;
  }
  return { chunks: chunks(), usage: () => (done ? u : null) };
}

async function collect(stream: ChunkStream): Promise<ChatCompletionChunk[]> {
  const out: ChatCompletionChunk[] = [];
  for (let next = await stream.chunks.next(); !next.done; next = await stream.chunks.next()) out.push(next.value);
  return out;
}

describe('mergeChunkStreams with in-memory chunk streams', () => {
  it('interleaves the streams under one id, choice i for stream i, without usage keys', async () => {
    let closed = 0;
    const merged = mergeChunkStreams([fakeStream('msg_a', ['a1', 'a2'], 5, usage(10, 2)), fakeStream('msg_b', ['b1', 'b2', 'b3'], 2, usage(10, 3))], false, () => closed++);
    const chunks = await collect(merged);
    expect(new Set(chunks.map((c) => c.id))).toEqual(new Set(['msg_a']));
    expect(chunks.every((c) => !('usage' in c))).toBe(true);
    const textOf = (index: number) => chunks.flatMap((c) => c.choices.filter((x) => x.index === index).map((x) => x.delta.content ?? '')).join('');
    expect(textOf(0)).toBe('a1a2');
    expect(textOf(1)).toBe('b1b2b3');
    expect(chunks.filter((c) => c.choices[0].finish_reason === 'stop').map((c) => c.choices[0].index).sort()).toEqual([0, 1]);
    // Arrival order, not stream order: stream 1 pauses less and gets ahead.
    expect(chunks.findIndex((c) => c.choices[0].delta.content === 'b2')).toBeLessThan(chunks.findIndex((c) => c.choices[0].delta.content === 'a2'));
    expect(merged.usage()).toEqual(usage(20, 5));
    expect(closed).toBe(1);
  });

  it('with include_usage: usage null on every chunk and a last choices: [] chunk with the sum', async () => {
    const chunks = await collect(mergeChunkStreams([fakeStream('msg_a', ['a'], 1, usage(10, 2, 8)), fakeStream('msg_b', ['b'], 1, usage(10, 3, 8))], true, () => undefined));
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks[chunks.length - 1]).toEqual({ id: 'msg_a', object: 'chat.completion.chunk', created: 1, model: 'claude-sonnet-4-5-20250929', choices: [], usage: usage(20, 5, 16) });
  });

  it('ends with the first stream error and closes the rest', async () => {
    let closed = 0;
    const merged = mergeChunkStreams([fakeStream('msg_a', ['a1', 'a2', 'a3'], 5, usage(1, 1)), fakeStream('msg_b', ['b1', 'b2'], 1, usage(1, 1), 1)], false, () => closed++);
    await expect(collect(merged)).rejects.toMatchObject({ kind: 'stream', upstreamStatus: 529 });
    expect(closed).toBe(1);
  });

  it('closes when the consumer stops early', async () => {
    let closed = 0;
    const merged = mergeChunkStreams([fakeStream('msg_a', ['a1', 'a2'], 1, usage(1, 1)), fakeStream('msg_b', ['b1'], 1, usage(1, 1))], false, () => closed++);
    await merged.chunks.next();
    await merged.chunks.return?.();
    expect(closed).toBe(1);
  });
});
