import { PatchbayError } from '../../errors/patchbay-error.ts';
import { ProviderError } from '../../errors/provider-error.ts';
import { openAiErrorBody } from '../openai/openai-chat-codec.ts';

/**
 * The `response.error.code` of a response.failed for an error: the words Codex acts on
 * (rate_limit_exceeded is retried after the delay its message names, context_length_exceeded is
 * not retried), server_error otherwise.
 */
export function failureCode(error: unknown): string {
  if (!(error instanceof PatchbayError)) return 'server_error';
  if (error.status === 429) return 'rate_limit_exceeded';
  const code = error.code ?? '';
  if (code === 'context_length_exceeded' || code === 'insufficient_quota') return code;
  return 'server_error';
}

/** The message a response.failed carries: what failed and, for a provider, which one. */
export function failureMessage(error: unknown): string {
  if (error instanceof ProviderError) return error.message;
  if (error instanceof PatchbayError) return error.message;
  return 'Patchbay hit an internal error; the details are in its log.';
}

/** Before the stream starts a Responses error is OpenAI's error body, the same as chat's. */
export function encodeResponsesError(error: unknown): { status: number; body: unknown } {
  return { status: error instanceof PatchbayError ? error.status : 500, body: openAiErrorBody(error) };
}
