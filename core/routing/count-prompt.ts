import { countTokens } from '../tokens/count-tokens.ts';
import { MAX_COUNT_BYTES } from '../tokens/token-counter.ts';
import { maxTokens, minTokens, roughTokens } from './estimate-tokens.ts';
import { outputFor, type PlanOptions } from './plan-route.ts';
import type { RouteShape } from './resolve-route-groups.ts';
import type { RouteRequest } from './route-plan.ts';

/** Whether the prompt's byte bounds leave it possibly too long for the smallest context window among the candidates. */
export function mightNotFit(request: RouteRequest, smallestContext: number): boolean {
  return maxTokens(request.prompt) + (request.maxTokens ?? 0) > smallestContext;
}

/**
 * How many tokens the prompt needs at least, for the plan's context step. The byte bounds decide
 * first; the tokenizer runs (on its thread, within its budget and size cap) only for a prompt the
 * bounds leave undecided. An endpoint is left out only on a count that proves the prompt too long
 * (an exact count, or the lower bound): when the count is unknown or an estimate, an endpoint the
 * prompt might fit is kept and the upstream decides. Never a wrong refusal.
 */
export async function countPrompt(request: RouteRequest, shape: RouteShape): Promise<PlanOptions> {
  const output = request.maxTokens ?? 0;
  const prompt = request.prompt;
  const lower = minTokens(prompt);
  const upper = maxTokens(prompt);
  // Token ids alone are an exact count.
  let proven = lower;
  let exact = lower === upper;
  let estimate = roughTokens(prompt);
  const undecided = shape.groups.some((g) => g.endpoints.some((e) => e.contextWindow > 0 && lower + outputFor(e, output) <= e.contextWindow && upper + outputFor(e, output) > e.contextWindow));
  if (!exact && undecided && prompt.bytes <= MAX_COUNT_BYTES) {
    const counted = await countTokens(prompt.pieces.join('\n'));
    if (counted?.exact) {
      proven = estimate = prompt.ids + counted.tokens;
      exact = true;
    } else if (counted) {
      estimate = prompt.ids + counted.tokens;
    }
  }
  return { promptTokens: exact ? proven : Math.min(Math.max(estimate, lower), upper), contextTokens: { proven, exact } };
}
