import { describe, expect, it } from 'vitest';
import { mapGeminiError, mapGeminiStreamError } from '../../../core/providers/gemini/map-error.ts';

/** Reference 3.7, observed bodies. */
const API_KEY_INVALID = {
  error: {
    code: 400,
    message: 'API key not valid. Please pass a valid API key.',
    status: 'INVALID_ARGUMENT',
    details: [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
      { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message: 'API key not valid. Please pass a valid API key.' },
    ],
  },
};
const NOT_FOUND = {
  error: {
    code: 404,
    message:
      'models/gemini-pro is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.',
    status: 'NOT_FOUND',
  },
};
const PER_MINUTE_429 = {
  error: {
    code: 429,
    message: 'You exceeded your current quota, please check your plan and billing details.',
    status: 'RESOURCE_EXHAUSTED',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
        violations: [
          {
            quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
            quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
            quotaDimensions: { location: 'global', model: 'gemini-2.5-flash' },
          },
        ],
      },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '34.4s' },
    ],
  },
};
const PER_DAY_429 = {
  error: {
    code: 429,
    message: 'You exceeded your current quota.',
    status: 'RESOURCE_EXHAUSTED',
    details: [
      { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier' }] },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '13s' },
    ],
  },
};

const map = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  mapGeminiError('google', status, headers, typeof body === 'string' ? body : JSON.stringify(body));

describe('mapGeminiError (reference 3.7, 7.7)', () => {
  it('a rejected key is Patchbay’s setup, not the caller’s request: upstream 401, client 502', () => {
    const error = map(400, API_KEY_INVALID);
    expect(error.upstreamStatus).toBe(401);
    expect(error.status).toBe(502);
    expect(error.code).toBe('invalid_api_key');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('check the Gemini API key');
    expect(error.message).toContain('API key not valid');
  });

  it('a 401 UNAUTHENTICATED is treated the same way', () => {
    const error = map(401, { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } });
    expect([error.upstreamStatus, error.status, error.code]).toEqual([401, 502, 'invalid_api_key']);
  });

  it('404 is model_not_found', () => {
    const error = map(404, NOT_FOUND);
    expect([error.status, error.type, error.code, error.retryable]).toEqual([404, 'invalid_request_error', 'model_not_found', false]);
    expect(error.message).toBe(`google: ${NOT_FOUND.error.message}`);
  });

  it('429 with RetryInfo carries the wait (34.4s -> 34400 ms, Retry-After 35) and is not retried elsewhere', () => {
    const error = map(429, PER_MINUTE_429);
    expect(error.retryAfterMs).toBe(34_400);
    expect(error.retryable).toBe(false);
    expect([error.status, error.type, error.code]).toEqual([429, 'rate_limit_error', 'rate_limit_exceeded']);
    expect(error.headers).toEqual({ 'retry-after': '35' });
  });

  it('429 on a per-day quota is insufficient_quota without a wait, so another endpoint may serve', () => {
    const error = map(429, PER_DAY_429);
    expect([error.status, error.type, error.code, error.retryAfterMs, error.retryable]).toEqual([429, 'insufficient_quota', 'insufficient_quota', undefined, true]);
    expect(error.headers).toBeUndefined();
  });

  it('429 without any wait is retryable elsewhere; a Retry-After header from a proxy is still honoured', () => {
    const bare = { error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } };
    expect(map(429, bare)).toMatchObject({ retryable: true, retryAfterMs: undefined });
    expect(map(429, bare, { 'retry-after': '5' })).toMatchObject({ retryable: false, retryAfterMs: 5000 });
  });

  it.each([
    [500, 'INTERNAL', 500],
    [503, 'UNAVAILABLE', 503],
    [504, 'DEADLINE_EXCEEDED', 504],
  ])('%i %s is retryable and reaches the client as %i', (status, name, clientStatus) => {
    const error = map(status, { error: { code: status, message: 'The model is overloaded. Please try again later.', status: name } });
    expect([error.retryable, error.status, error.type, error.code]).toEqual([true, clientStatus, 'server_error', name.toLowerCase()]);
  });

  it('400 INVALID_ARGUMENT blames the request and is not retried; FAILED_PRECONDITION may be served elsewhere', () => {
    const invalid = map(400, { error: { code: 400, message: '* GenerateContentRequest.contents: contents is not specified', status: 'INVALID_ARGUMENT' } });
    expect([invalid.status, invalid.type, invalid.code, invalid.retryable]).toEqual([400, 'invalid_request_error', 'invalid_argument', false]);
    const region = map(400, { error: { code: 400, message: 'User location is not supported for the API use.', status: 'FAILED_PRECONDITION' } });
    expect([region.status, region.retryable]).toEqual([400, true]);
  });

  it('403 PERMISSION_DENIED stays 403', () => {
    expect(map(403, { error: { code: 403, message: 'Method doesn’t allow unregistered callers.', status: 'PERMISSION_DENIED' } })).toMatchObject({ status: 403, retryable: false });
  });

  it('keeps the start of a body that is not JSON, and reads the array-wrapped form', () => {
    expect(map(502, '<html>Bad Gateway</html>')).toMatchObject({ status: 502, retryable: true, message: 'google: <html>Bad Gateway</html>' });
    expect(map(503, [{ error: { code: 503, message: 'overloaded', status: 'UNAVAILABLE' } }])).toMatchObject({ message: 'google: overloaded', code: 'unavailable' });
  });
});

describe('mapGeminiStreamError', () => {
  it('classifies an error event inside a 200 stream like an HTTP error, as a stream failure', () => {
    const error = mapGeminiStreamError('google', { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' });
    expect([error.kind, error.upstreamStatus, error.retryable]).toEqual(['stream', 503, true]);
  });
});
