import { ContextLengthError, PatchbayError } from '../../errors/patchbay-error.ts';
import { AllProvidersFailedError, ProviderError } from '../../errors/provider-error.ts';

const TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** Anthropic's error type for a status: its own table, other 4xx are invalid_request_error and other 5xx api_error. */
export function anthropicErrorType(status: number): string {
  return TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

const INTERNAL = { type: 'error', error: { type: 'api_error', message: 'Patchbay hit an internal error; the details are in its log.' } };

/**
 * Any error -> Anthropic's body `{"type":"error","error":{"type","message"}}`, the status kept.
 * Patchbay's own fields (code, param, provider, attempts) ride along inside `error`: Anthropic's
 * clients ignore members they do not know, and a person reading the answer sees what failed.
 */
export function encodeAnthropicError(error: unknown): { status: number; body: Record<string, unknown> } {
  if (!(error instanceof PatchbayError)) return { status: 500, body: INTERNAL };
  if (error instanceof ContextLengthError) return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message: contextLengthMessage(error) } } };
  const { message: _message, type: _type, ...details } = error.toBody().error;
  const extra = Object.fromEntries(Object.entries(details).filter(([, value]) => value !== null));
  const type = upstreamOverloaded(error) ? 'overloaded_error' : anthropicErrorType(error.status);
  return { status: error.status, body: { type: 'error', error: { type, message: error.message, ...extra } } };
}

/**
 * An upstream's "overloaded" (529) keeps its name, so Claude Code's retry logic recognises it (it
 * waits and retries an overload, and tells the user so, unlike an api_error): the upstream's own
 * error, or every attempt of the route overloaded (a model served by one provider has one attempt).
 */
function upstreamOverloaded(error: PatchbayError): boolean {
  if (error instanceof ProviderError) return error.upstreamStatus === 529;
  return error instanceof AllProvidersFailedError && error.attempts.length > 0 && error.attempts.every((attempt) => attempt.status === 529);
}

/**
 * Anthropic's own words for a prompt over the window, exactly: Claude Code recognises them and
 * compacts the conversation ("prompt is too long"), or lowers max_tokens (the second form).
 */
function contextLengthMessage(error: ContextLengthError): string {
  if (error.promptTokens > error.contextWindow || error.outputTokens === 0) return `prompt is too long: ${error.promptTokens} tokens > ${error.contextWindow} maximum`;
  return `input length and \`max_tokens\` exceed context limit: ${error.promptTokens} + ${error.outputTokens} > ${error.contextWindow}, decrease input length or \`max_tokens\` and try again`;
}
