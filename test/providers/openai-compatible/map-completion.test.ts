import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../core/errors/patchbay-error.ts';
import type { CompletionRequest } from '../../../core/protocols/openai/request-schemas.ts';
import {
  createCompletionStreamState,
  finishCompletionStream,
  finishPromptStream,
  mapCompletionChunk,
  streamedUsage,
} from '../../../core/providers/openai-compatible/map-completion-chunk.ts';
import { mapTogetherCompletionLogprobs } from '../../../core/providers/openai-compatible/map-completion-logprobs.ts';
import { mapCompletionRequests } from '../../../core/providers/openai-compatible/map-completion-request.ts';
import { mergeCompletionAnswers, type TogetherCompletion } from '../../../core/providers/openai-compatible/merge-completion-answers.ts';
import { quirksFor } from '../../../core/providers/openai-compatible/quirks.ts';
import { TOGETHER_COMPLETION_LAST_CHUNK, togetherCompletion } from './wire-fixtures.ts';

const together = quirksFor('together');

function completion(extra: Partial<CompletionRequest> = {}): CompletionRequest {
  return { model: 'llama-3.3-70b', prompt: ['Once upon', 'In a galaxy'], ...extra } as CompletionRequest;
}

describe('mapCompletionRequests', () => {
  it('sends OpenAI-like upstreams one body, the caller’s with the model id', () => {
    const request = completion({ best_of: 3, suffix: 'x', stream_options: { include_usage: true } });
    expect(mapCompletionRequests(request, 'gpt-3.5-turbo-instruct', quirksFor('openai'))).toEqual([{ ...request, model: 'gpt-3.5-turbo-instruct' }]);
  });

  it('fans a prompt array out to one Together request per prompt (Together takes one string, §5.3)', () => {
    const bodies = mapCompletionRequests(completion({ n: 2, stop: 'END', logprobs: 3, echo: true, stream_options: { include_usage: true } }), 'm', together);
    expect(bodies).toEqual([
      { model: 'm', prompt: 'Once upon', n: 2, stop: ['END'], logprobs: 3, echo: true, max_tokens: 16 },
      { model: 'm', prompt: 'In a galaxy', n: 2, stop: ['END'], logprobs: 3, echo: true, max_tokens: 16 },
    ]);
  });

  it("keeps OpenAI's default of 16 tokens and the caller's max_tokens", () => {
    expect(mapCompletionRequests(completion({ prompt: 'x' }), 'm', together)[0].max_tokens).toBe(16);
    expect(mapCompletionRequests(completion({ prompt: 'x', max_tokens: 200 }), 'm', together)[0].max_tokens).toBe(200);
  });

  it('asks Together for at least one logprob when the client sent logprobs: 0', () => {
    expect(mapCompletionRequests(completion({ prompt: 'x', logprobs: 0 }), 'm', together)[0].logprobs).toBe(1);
    expect(mapCompletionRequests(completion({ prompt: 'x' }), 'm', together)[0]).not.toHaveProperty('logprobs');
  });

  it('refuses what Together cannot do: token prompts, suffix, best_of above n', () => {
    expect(() => mapCompletionRequests(completion({ prompt: [1, 2, 3] }), 'm', together)).toThrow(InvalidRequestError);
    expect(() => mapCompletionRequests(completion({ suffix: 'end' }), 'm', together)).toThrow(/suffix/);
    expect(() => mapCompletionRequests(completion({ best_of: 3 }), 'm', together)).toThrow(/best_of/);
    expect(mapCompletionRequests(completion({ best_of: 2, n: 2 }), 'm', together)[0]).not.toHaveProperty('best_of');
  });
});

describe('mergeCompletionAnswers (Together JSON to one OpenAI text_completion)', () => {
  it('numbers choices promptIndex * n + i, sums usage, renames the object and maps eos', () => {
    const answers = [
      { ...(JSON.parse(togetherCompletion(' there', { prompt_tokens: 2, completion_tokens: 1 })) as TogetherCompletion), choices: [{ text: ' a', finish_reason: 'eos' }, { text: ' b', finish_reason: 'length' }] },
      { ...(JSON.parse(togetherCompletion(' far', { prompt_tokens: 3, completion_tokens: 2 })) as TogetherCompletion), choices: [{ text: ' c', finish_reason: 'eos' }, { text: ' d', finish_reason: 'eos' }] },
    ];
    const { body, usage } = mergeCompletionAnswers(answers, ['Once upon', 'In a galaxy'], completion({ n: 2 }), together);
    expect(body).toEqual({
      id: answers[0].id,
      object: 'text_completion',
      created: 1711977238,
      model: 'mistralai/Mixtral-8x7B-v0.1',
      choices: [
        { text: ' a', index: 0, logprobs: null, finish_reason: 'stop' },
        { text: ' b', index: 1, logprobs: null, finish_reason: 'length' },
        { text: ' c', index: 2, logprobs: null, finish_reason: 'stop' },
        { text: ' d', index: 3, logprobs: null, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
    });
    expect(usage).toEqual({ prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 });
  });

  it("maps logprobs to OpenAI's {tokens, token_logprobs, top_logprobs, text_offset}", () => {
    const answer = JSON.parse(togetherCompletion(' Paris.', { prompt_tokens: 7, completion_tokens: 2 })) as TogetherCompletion;
    answer.choices![0].logprobs = { tokens: [' Paris', '.'], token_ids: [1, 2], token_logprobs: [-0.0123, -0.3451], top_logprobs: [{ ' Paris': -0.0123, ' paris': -4.91 }, { '.': -0.3451 }] };
    const prompt = 'The capital of France is';
    const { body } = mergeCompletionAnswers([answer], [prompt], completion({ prompt, logprobs: 2 }), together);
    expect((body as { choices: { logprobs: unknown }[] }).choices[0].logprobs).toEqual({
      tokens: [' Paris', '.'],
      token_logprobs: [-0.0123, -0.3451],
      top_logprobs: [{ ' Paris': -0.0123, ' paris': -4.91 }, { '.': -0.3451 }],
      text_offset: [24, 30],
    });
  });

  it('with echo puts the prompt in front of the text and its logprobs first, as OpenAI does', () => {
    const answer = JSON.parse(togetherCompletion(' Paris', { prompt_tokens: 2, completion_tokens: 1 })) as TogetherCompletion;
    answer.choices![0].logprobs = { tokens: [' Paris'], token_logprobs: [-0.1] };
    answer.prompt = [{ text: 'Hi you', logprobs: { tokens: ['Hi', ' you'], token_logprobs: [null, -2] } }];
    const { body } = mergeCompletionAnswers([answer], ['Hi you'], completion({ prompt: 'Hi you', echo: true, logprobs: 0 }), together);
    const choice = (body as { choices: { text: string; logprobs: unknown }[] }).choices[0];
    expect(choice.text).toBe('Hi you Paris');
    expect(choice.logprobs).toEqual({ tokens: ['Hi', ' you', ' Paris'], token_logprobs: [null, -2, -0.1], top_logprobs: null, text_offset: [0, 2, 6] });
  });

  it('counts text offsets in characters, not UTF-16 units', () => {
    expect(mapTogetherCompletionLogprobs({ tokens: ['😀', 'a'], token_logprobs: [-1, -1] }, 0).text_offset).toEqual([0, 1]);
  });
});

describe('mapCompletionChunk (Together completion.chunk to OpenAI text_completion chunks)', () => {
  it("maps the recorded last chunk (§5.3): OpenAI's choice shape only, usage kept for the end", () => {
    const state = createCompletionStreamState(completion({ prompt: 'p' }), together, true, 'together');
    const [out] = mapCompletionChunk(TOGETHER_COMPLETION_LAST_CHUNK, state, 0, 'p');
    expect(JSON.parse(out)).toEqual({
      id: '86d8d6e06df86f61-ATH',
      object: 'text_completion',
      created: 1711977238,
      model: 'mistralai/Mixtral-8x7B-v0.1',
      choices: [{ text: '":', index: 0, logprobs: null, finish_reason: 'length' }],
      usage: null,
    });
    finishPromptStream(state);
    expect(finishCompletionStream(state).map((c) => JSON.parse(c))).toEqual([
      { id: '86d8d6e06df86f61-ATH', object: 'text_completion', created: 1711977238, model: 'mistralai/Mixtral-8x7B-v0.1', choices: [], usage: { prompt_tokens: 17, completion_tokens: 200, total_tokens: 217 } },
    ]);
  });

  it('merges prompts into one stream: one id, indexes per prompt, usage summed, eos mapped, token logprobs', () => {
    const request = completion({ logprobs: 1 });
    const state = createCompletionStreamState(request, together, false, 'together');
    const chunk = (id: string, text: string, finish: string | null, usage?: object) =>
      JSON.stringify({ id, object: 'completion.chunk', created: 1, model: 'm', token: { id: 5, text, logprob: -0.5, special: false }, choices: [{ index: 0, text, delta: { token_id: 5, content: text } }], finish_reason: finish, usage: usage ?? null });
    const out = [
      ...mapCompletionChunk(chunk('first', ' a', null), state, 0, 'Once upon'),
      ...mapCompletionChunk(chunk('first', ' b', 'eos', { prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 }), state, 0, 'Once upon'),
    ];
    finishPromptStream(state);
    out.push(...mapCompletionChunk(chunk('second', ' c', 'length', { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 }), state, 1, 'In a galaxy'));
    expect(streamedUsage(state)).toEqual({ prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 });
    finishPromptStream(state);
    const parsed = out.map((o) => JSON.parse(o) as { id: string; choices: Record<string, unknown>[] });
    expect(parsed.every((c) => c.id === 'first' && !('usage' in c))).toBe(true);
    expect(parsed.map((c) => c.choices[0])).toEqual([
      { text: ' a', index: 0, logprobs: { tokens: [' a'], token_logprobs: [-0.5], top_logprobs: [{ ' a': -0.5 }], text_offset: [9] }, finish_reason: null },
      { text: ' b', index: 0, logprobs: { tokens: [' b'], token_logprobs: [-0.5], top_logprobs: [{ ' b': -0.5 }], text_offset: [11] }, finish_reason: 'stop' },
      { text: ' c', index: 1, logprobs: { tokens: [' c'], token_logprobs: [-0.5], top_logprobs: [{ ' c': -0.5 }], text_offset: [11] }, finish_reason: 'length' },
    ]);
    expect(finishCompletionStream(state)).toEqual([]);
  });

  it('with echo sends the prompt before the first text of each choice', () => {
    const state = createCompletionStreamState(completion({ prompt: 'Hi', echo: true }), together, false, 'together');
    const data = (text: string) => JSON.stringify({ id: 'x', choices: [{ index: 0, text }], usage: null });
    const texts = [...mapCompletionChunk(data(' a'), state, 0, 'Hi'), ...mapCompletionChunk(data(' b'), state, 0, 'Hi')].map((o) => (JSON.parse(o) as { choices: { text: string }[] }).choices[0].text);
    expect(texts).toEqual(['Hi a', ' b']);
  });
});
