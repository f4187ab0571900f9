import { ProviderError } from '../../errors/provider-error.ts';
import { isRetryableStatus } from '../openai-compatible/map-error.ts';
import { headerValue, parseRetryAfter, type UpstreamResponse } from '../upstream-response.ts';
import type { ErrorDetail, ErrorResponse } from './anthropic-wire-types.ts';

/** Anthropic's error types (docs.claude.com/en/api/errors) with their HTTP status and OpenAI's names for them. */
const ERROR_TYPES: Record<string, { status: number; type: string; code?: string }> = {
  invalid_request_error: { status: 400, type: 'invalid_request_error' },
  // The client sees a 502 (ProviderError): it is Patchbay's Anthropic key, not the caller's.
  authentication_error: { status: 401, type: 'authentication_error' },
  billing_error: { status: 402, type: 'insufficient_quota', code: 'insufficient_quota' },
  permission_error: { status: 403, type: 'permission_error' },
  not_found_error: { status: 404, type: 'invalid_request_error', code: 'model_not_found' },
  request_too_large: { status: 413, type: 'invalid_request_error', code: 'request_too_large' },
  rate_limit_error: { status: 429, type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  api_error: { status: 500, type: 'server_error' },
  timeout_error: { status: 504, type: 'server_error' },
  // Anthropic-wide overload; ProviderError answers it as 503, which OpenAI clients retry.
  overloaded_error: { status: 529, type: 'server_error' },
};

/** The HTTP status an Anthropic error type comes with (for an error body that arrived with a 200); unknown types are a bad answer, 502. */
export function statusOfAnthropicError(type: unknown): number {
  return (typeof type === 'string' ? ERROR_TYPES[type]?.status : undefined) ?? 502;
}

const SPEND_LIMIT = 'enforced_spend_limit_reached';

/**
 * An Anthropic HTTP error answer -> ProviderError (reference §2.6, §7.7). The message names
 * Anthropic's own error type and request id. Retryable (another endpoint may succeed) by the
 * rule all adapters share: 5xx including 529, and 429 without retry-after; a 429 that names its
 * wait goes back to the client.
 * A spend-limit 429 (told apart by `error.details.error_code`, not by its text) is
 * `insufficient_quota` and not retryable: the limit holds for the whole Anthropic organization
 * and no wait will lift it.
 */
export function mapAnthropicError(provider: string, status: number, headers: UpstreamResponse['headers'], text: string): ProviderError {
  let body: ErrorResponse | undefined;
  try {
    body = JSON.parse(text) as ErrorResponse;
  } catch {
    // Cloudflare answers a 413 (and gateways their 502s) with HTML before the API sees the request.
  }
  const detail: ErrorDetail = typeof body?.error === 'object' && body.error !== null ? body.error : {};
  const anthropicType = detail.type ?? Object.keys(ERROR_TYPES).find((key) => ERROR_TYPES[key].status === status) ?? `HTTP ${status}`;
  const known = ERROR_TYPES[anthropicType];
  const spendLimit = status === 429 && detail.details?.error_code === SPEND_LIMIT;
  const retryAfterMs = parseRetryAfter(headers);
  const requestId = body?.request_id ?? headerValue(headers, 'request-id');
  const said = detail.message ?? text.trim().slice(0, 300);
  let message = said ? `${anthropicType}: ${said}` : anthropicType;
  if (status === 401) message += ' - Anthropic rejected the API key Patchbay uses for this provider; check the Anthropic key in Patchbay\'s settings or environment.';
  if (requestId) message += ` (request_id ${requestId})`;
  return new ProviderError({
    provider,
    upstreamStatus: status,
    message,
    type: spendLimit ? 'insufficient_quota' : known?.type,
    code: spendLimit ? 'insufficient_quota' : (known?.code ?? null),
    retryable: !spendLimit && isRetryableStatus(status, retryAfterMs),
    retryAfterMs,
  });
}

/**
 * `event: error` inside a 200 stream (e.g. overloaded_error, which "would normally correspond to
 * an HTTP 529"). Always retryable: before the first chunk reaches the client another endpoint may
 * still answer; after it, the error travels in the stream whatever this flag says.
 */
export function mapStreamError(provider: string, detail: ErrorDetail | undefined): ProviderError {
  const anthropicType = detail?.type ?? 'api_error';
  const known = ERROR_TYPES[anthropicType];
  return new ProviderError({
    provider,
    upstreamStatus: known && known.status >= 500 ? known.status : 502,
    message: `${anthropicType}: ${detail?.message ?? 'the stream reported an error'}`,
    type: known?.type ?? 'server_error',
    code: known?.code ?? null,
    retryable: true,
    kind: 'stream',
  });
}
