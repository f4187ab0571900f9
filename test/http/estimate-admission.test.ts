import { describe, expect, it } from 'vitest';
import type { Endpoint } from '../../core/catalog/load-catalog.ts';
import { choicesFanOut, completionsFanOut, EMBEDDINGS_FAN_OUT, estimateAdmission, SINGLE_ANSWER } from '../../core/http/v1/estimate-admission.ts';

const endpoint = (inputPrice: number, outputPrice: number) => ({ inputPrice, outputPrice }) as Endpoint;
const cheap = endpoint(0.15, 0.6);
const dear = endpoint(3, 15);

describe('the admission estimate', () => {
  it('one answer: the prompt plus max_tokens, priced at the dearest candidate plus the fee', () => {
    expect(estimateAdmission(100, 1_000, SINGLE_ANSWER, [cheap, dear], 0.01)).toEqual({ tokens: 1_100, costUsd: (100 * 3 + 1_000 * 15) / 1e6 + 0.01 });
  });

  it('chat n: every choice may take max_tokens, and an upstream without n bills the prompt per choice', () => {
    expect(choicesFanOut(64)).toEqual({ generations: 64, promptCopies: 64 });
    expect(choicesFanOut(undefined)).toEqual(SINGLE_ANSWER);
    expect(estimateAdmission(5, 1_000, choicesFanOut(64), [cheap], 0).tokens).toBe(64 * 5 + 64_000);
  });

  it('completions: prompts × max(n, best_of) generations; token ids are one prompt', () => {
    expect(completionsFanOut({ prompt: Array.from({ length: 64 }, () => 'p') })).toEqual({ generations: 64, promptCopies: 1 });
    expect(completionsFanOut({ prompt: ['a', 'b'], n: 2, best_of: 5 })).toEqual({ generations: 10, promptCopies: 5 });
    expect(completionsFanOut({ prompt: [1, 2, 3], n: 3 })).toEqual({ generations: 3, promptCopies: 3 });
    expect(completionsFanOut({ prompt: [[1, 2], [3]] })).toEqual({ generations: 2, promptCopies: 1 });
    expect(estimateAdmission(40, 1_000, completionsFanOut({ prompt: Array.from({ length: 64 }, () => 'p') }), [cheap], 0).tokens).toBe(40 + 64_000);
  });

  it('embeddings: the input only', () => {
    expect(estimateAdmission(900, 256, EMBEDDINGS_FAN_OUT, [endpoint(0.02, 0)], 0)).toEqual({ tokens: 900, costUsd: (900 * 0.02) / 1e6 });
  });

  it('no candidate left to price: the fee only', () => {
    expect(estimateAdmission(10, 10, SINGLE_ANSWER, [], 0.5)).toEqual({ tokens: 20, costUsd: 0.5 });
  });
});
