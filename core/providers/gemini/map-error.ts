import { ProviderError } from '../../errors/provider-error.ts';
import { parseRetryAfter, type UpstreamResponse } from '../upstream-response.ts';
import type { GeminiErrorStatus } from './gemini-wire.ts';

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';
const QUOTA_FAILURE = 'type.googleapis.com/google.rpc.QuotaFailure';

/** A Gemini error answer (`{"error":{code,message,status,details}}`, google.rpc.Status) to a ProviderError. */
export function mapGeminiError(provider: string, status: number, headers: UpstreamResponse['headers'], text: string): ProviderError {
  return mapGeminiStatus(provider, status, parseStatus(text, status), parseRetryAfter(headers), 'http');
}

/** An `error` object as the whole body of a 200 (js-genai checks every answer for one): classified as if it had come with its own status. */
export function mapGeminiErrorBody(provider: string, error: GeminiErrorStatus): ProviderError {
  return mapGeminiStatus(provider, typeof error.code === 'number' && error.code >= 400 ? error.code : 502, error, undefined, 'http');
}

/** An `error` object inside a 200 stream: the same classification, reported as a stream failure. */
export function mapGeminiStreamError(provider: string, error: GeminiErrorStatus): ProviderError {
  return mapGeminiStatus(provider, typeof error.code === 'number' ? error.code : 502, error, undefined, 'stream');
}

/**
 * Classified by HTTP status and the structured `details`, never by message text (reference 7.7):
 * - a rejected key (400 with ErrorInfo reason API_KEY_*, or 401) is Patchbay's setup, not the
 *   caller's request: reported with upstream status 401, which the client sees as 502;
 * - 429 takes its wait from RetryInfo.retryDelay (Gemini sends no Retry-After header); with a
 *   wait it is passed to the client, without one another endpoint may be tried. A per-day quota
 *   will not clear in that wait: insufficient_quota, and the short retryDelay is ignored;
 * - 400 FAILED_PRECONDITION (region unsupported, billing required) says nothing about the
 *   request, so another provider may serve it;
 * - 404 is an unknown model; 5xx and 408 are worth another endpoint.
 */
function mapGeminiStatus(provider: string, httpStatus: number, error: GeminiErrorStatus, headerWaitMs: number | undefined, kind: 'http' | 'stream'): ProviderError {
  const details = Array.isArray(error.details) ? error.details : [];
  const message = error.message || `HTTP ${httpStatus}`;
  const reason = details.find((d) => d['@type'] === ERROR_INFO)?.reason;
  const code = typeof error.status === 'string' ? error.status.toLowerCase() : null;
  const base = { provider, message, kind, code };

  if ((typeof reason === 'string' && reason.startsWith('API_KEY_')) || httpStatus === 401) {
    return new ProviderError({
      ...base,
      upstreamStatus: 401,
      message: `rejected the API key Patchbay uses for it; check the Gemini API key configured for this provider (${message})`,
      code: 'invalid_api_key',
      retryable: false,
    });
  }
  if (httpStatus === 429) {
    if (isDailyQuota(details)) {
      return new ProviderError({ ...base, upstreamStatus: 429, type: 'insufficient_quota', code: 'insufficient_quota', retryable: true });
    }
    const retryAfterMs = retryDelayMs(details) ?? headerWaitMs;
    return new ProviderError({ ...base, upstreamStatus: 429, code: 'rate_limit_exceeded', retryAfterMs, retryable: retryAfterMs === undefined });
  }
  if (httpStatus === 404) return new ProviderError({ ...base, upstreamStatus: 404, code: 'model_not_found', retryable: false });
  if (httpStatus === 400 && error.status === 'FAILED_PRECONDITION') return new ProviderError({ ...base, upstreamStatus: 400, retryable: true });
  return new ProviderError({ ...base, upstreamStatus: httpStatus, retryable: httpStatus >= 500 || httpStatus === 408 });
}

function parseStatus(text: string, httpStatus: number): GeminiErrorStatus {
  try {
    const parsed = JSON.parse(text) as unknown;
    // The JSON-array stream mode wraps the error in an array; an SSE or plain answer does not.
    const body = Array.isArray(parsed) ? parsed[0] : parsed;
    const error = (body as { error?: unknown } | null)?.error;
    if (typeof error === 'object' && error !== null) return error as GeminiErrorStatus;
  } catch {
    // Not JSON: a proxy or load balancer answered; keep the start of its text.
  }
  return { message: text.slice(0, 300) || `HTTP ${httpStatus}` };
}

/** RetryInfo.retryDelay is a protobuf Duration in JSON: seconds with an `s`, possibly fractional ("34.4s"). */
function retryDelayMs(details: Record<string, unknown>[]): number | undefined {
  const delay = details.find((d) => d['@type'] === RETRY_INFO)?.retryDelay;
  const match = typeof delay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(delay.trim()) : null;
  return match ? Math.ceil(Number(match[1]) * 1000) : undefined;
}

function isDailyQuota(details: Record<string, unknown>[]): boolean {
  return details
    .filter((d) => d['@type'] === QUOTA_FAILURE && Array.isArray(d.violations))
    .flatMap((d) => d.violations as { quotaId?: unknown }[])
    .some((v) => typeof v?.quotaId === 'string' && /PerDay/i.test(v.quotaId));
}
