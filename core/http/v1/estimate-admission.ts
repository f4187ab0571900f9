import type { Endpoint } from '../../catalog/load-catalog.ts';
import type { Estimate } from '../../keys/key-limiter.ts';
import { expectedCost } from '../../routing/rank-endpoints.ts';

/** How many answers a request can make an upstream generate, and how it is billed for them. */
export interface FanOut {
  /** Generations in all: chat's `n`, completions' prompts × max(n, best_of), 1 for Messages and Responses, 0 for embeddings. */
  generations: number;
  /**
   * How many times the prompt can be billed: an upstream without `n` (Anthropic, one-prompt
   * completions via chat) makes one call per generation, each paying for its prompt again.
   */
  promptCopies: number;
}

export const SINGLE_ANSWER: FanOut = { generations: 1, promptCopies: 1 };

/**
 * What admission reserves against a key's caps: the most the request can use on any of its
 * candidates. Prompt tokens (all prompts once, Patchbay's estimate) × promptCopies, plus
 * generations × the output each may take (max_tokens, or the assumed default when unset);
 * the cost is the dearest candidate's price of that, plus the routing fee.
 */
export function estimateAdmission(promptTokens: number, outputTokensEach: number, fanOut: FanOut, candidates: readonly Endpoint[], routingFeeUsd: number): Estimate {
  const prompt = promptTokens * fanOut.promptCopies;
  const output = outputTokensEach * fanOut.generations;
  let costUsd = 0;
  for (const endpoint of candidates) costUsd = Math.max(costUsd, expectedCost(endpoint, prompt, output));
  return { tokens: prompt + output, costUsd: costUsd + routingFeeUsd };
}

/** Generations of a completions request: a list of token ids is one prompt; best_of candidates are generated (and billed) too. */
export function completionsFanOut(body: { prompt: unknown; n?: number | null; best_of?: number | null }): FanOut {
  const prompts = Array.isArray(body.prompt) && body.prompt.length > 0 && typeof body.prompt[0] !== 'number' ? body.prompt.length : 1;
  const perPrompt = Math.max(body.n ?? 1, body.best_of ?? 1);
  return { generations: prompts * perPrompt, promptCopies: perPrompt };
}

/** Chat's `n` choices. */
export function choicesFanOut(n: number | null | undefined): FanOut {
  const choices = Math.max(1, n ?? 1);
  return { generations: choices, promptCopies: choices };
}

/** Embeddings bill their input only. */
export const EMBEDDINGS_FAN_OUT: FanOut = { generations: 0, promptCopies: 1 };
