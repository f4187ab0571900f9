import { ProviderError } from '../../errors/provider-error.ts';
import { parseRetryAfter, type UpstreamResponse } from '../transport.ts';

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
