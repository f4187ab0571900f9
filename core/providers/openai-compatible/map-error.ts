import { ProviderError } from '../../errors/provider-error.ts';
import { parseRetryAfter, type UpstreamResponse } from '../upstream-response.ts';

/** Maps an OpenAI-style error answer (`{"error":{message,type,param,code}}`) to a ProviderError. */
export function mapOpenAiError(provider: string, status: number, headers: UpstreamResponse['headers'], text: string): ProviderError {
  let error: { message?: unknown; type?: unknown; code?: unknown; param?: unknown } = {};
  try {
    const parsed = JSON.parse(text) as { error?: unknown; message?: unknown };
    // Most OpenAI look-alikes nest under `error`; some (older vLLM, Ollama) answer `{"error":"text"}` or `{"message":...}`.
    if (parsed && typeof parsed.error === 'object' && parsed.error) error = parsed.error as typeof error;
    else if (typeof parsed?.error === 'string') error = { message: parsed.error };
    else if (typeof parsed?.message === 'string') error = { message: parsed.message };
  } catch {
    error = { message: text.slice(0, 300) || `HTTP ${status}` };
  }
  const retryAfterMs = parseRetryAfter(headers);
  return new ProviderError({
    provider,
    upstreamStatus: status,
    message: typeof error.message === 'string' && error.message ? error.message : `HTTP ${status}`,
    type: typeof error.type === 'string' ? error.type : undefined,
    code: typeof error.code === 'string' ? error.code : error.code != null ? String(error.code) : null,
    param: typeof error.param === 'string' ? error.param : null,
    retryable: isRetryableStatus(status, retryAfterMs),
    retryAfterMs,
  });
}

/** OpenAI-style error types (and the codes that say the same) with the HTTP status each comes with (reference §1.8, §4.5, §5.6). */
const STATUS_OF_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  requests: 429,
  tokens: 429,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  insufficient_quota: 429,
  dynamic_request_limited: 429,
  dynamic_token_limited: 429,
  server_error: 500,
  api_error: 500,
};

/**
 * The status an error body stands for when it arrived with a 200 (an upstream that reports
 * failures in the body): a numeric `code` that is an HTTP error status (vLLM-style servers), else
 * its `type`, else its `code`; an error nothing identifies is a bad answer from the upstream (502),
 * worth trying elsewhere.
 */
export function statusOfErrorBody(error: unknown): number {
  if (typeof error !== 'object' || error === null) return 502;
  const { code, type } = error as { code?: unknown; type?: unknown };
  const numeric = typeof code === 'number' ? code : typeof code === 'string' && /^[45]\d\d$/.test(code) ? Number(code) : 0;
  if (numeric >= 400 && numeric <= 599) return numeric;
  return (typeof type === 'string' ? STATUS_OF_TYPE[type] : undefined) ?? (typeof code === 'string' ? STATUS_OF_TYPE[code] : undefined) ?? 502;
}

/**
 * 5xx, 408 and 429 without a retry window are worth trying elsewhere (spec 4.5). A 429 that names
 * its retry window is passed back so the client can wait it out. A 413 is this upstream's size
 * limit, not the request's fault everywhere: Groq answers 413 `rate_limit_exceeded` when one
 * request exceeds the organisation's tokens-per-minute limit (provider-wire §4.5, §7.7), which
 * another provider of the same model can still serve.
 */
export function isRetryableStatus(status: number, retryAfterMs: number | undefined): boolean {
  if (status >= 500 || status === 408 || status === 413) return true;
  if (status === 429) return retryAfterMs === undefined;
  return false;
}
