import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { CompletionRequest } from '../../protocols/openai/request-schemas.ts';
import type { OpenAiQuirks } from './quirks.ts';

type Body = Record<string, unknown>;

/** OpenAI's completions default when max_tokens is unset (§1.5); other upstreams default higher. */
const OPENAI_DEFAULT_MAX_TOKENS = 16;

/**
 * The /completions bodies to send, one per upstream request. An OpenAI-like upstream gets the
 * caller's body with the provider's model id. Together takes one string prompt (§5.3), so a
 * prompt array becomes one request per prompt, merged back by the caller.
 */
export function mapCompletionRequests(request: CompletionRequest, model: string, quirks: OpenAiQuirks, provider = 'this provider'): Body[] {
  const body: Body = { ...request, model };
  if (!quirks.singlePromptCompletions) return [body];
  const prompts = textPrompts(request.prompt, provider);
  if (request.suffix) {
    throw new InvalidRequestError(`${provider} has no 'suffix' for completions; remove it or choose another model.`, 'suffix', 'unsupported_parameter');
  }
  // best_of equal to n is n plain samples; more needs server-side ranking Together does not do.
  if ((request.best_of ?? 1) > (request.n ?? 1)) {
    throw new InvalidRequestError(`${provider} cannot rank 'best_of' candidates; remove it or choose another model.`, 'best_of', 'unsupported_parameter');
  }
  delete body.best_of;
  delete body.suffix;
  if (!quirks.streamUsageOption) delete body.stream_options;
  if (quirks.stopAsArray && typeof request.stop === 'string') body.stop = [request.stop];
  body.max_tokens = request.max_tokens ?? OPENAI_DEFAULT_MAX_TOKENS;
  // OpenAI's `logprobs: 0` still returns the sampled tokens' log probabilities; Together's 0 may
  // mean none, so at least 1 is asked for.
  if (request.logprobs != null) body.logprobs = Math.max(1, request.logprobs);
  return prompts.map((prompt) => ({ ...body, prompt }));
}

/** The prompts as text, in order; token-id prompts cannot be sent to an upstream that takes text only. */
export function textPrompts(prompt: CompletionRequest['prompt'], provider = 'this provider'): string[] {
  const prompts: unknown[] = typeof prompt === 'string' ? [prompt] : prompt;
  if (!prompts.every((p): p is string => typeof p === 'string')) {
    throw new InvalidRequestError(`${provider} takes prompts as text only; send the prompt as a string or an array of strings.`, 'prompt', 'unsupported_parameter');
  }
  return prompts;
}
