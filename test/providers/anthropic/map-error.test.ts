import { describe, expect, it } from 'vitest';
import { mapAnthropicError, mapStreamError } from '../../../core/providers/anthropic/map-error.ts';
import { isRetryableStatus } from '../../../core/providers/openai-compatible/map-error.ts';

const body = (type: string, message: string, details?: object) => JSON.stringify({ type: 'error', error: { type, message, ...(details ? { details } : {}) } });

describe('mapAnthropicError (reference 2.6, 7.7)', () => {
  it('401 authentication_error (recorded body): not retryable, a 502 to the client, says to check the Anthropic key', () => {
    const text = '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_011CYhr1kdGzCrPHfrhibMen"}';
    const error = mapAnthropicError('anthropic', 401, {}, text);
    expect(error).toMatchObject({ provider: 'anthropic', upstreamStatus: 401, status: 502, retryable: false, type: 'authentication_error' });
    expect(error.message).toContain('authentication_error: invalid x-api-key');
    expect(error.message).toMatch(/check the Anthropic key/);
    expect(error.message).toContain('req_011CYhr1kdGzCrPHfrhibMen');
  });

  it('400 invalid_request_error (recorded temperature/top_p body): not retryable, 400, the message kept', () => {
    const text =
      '{"type":"error","error":{"type":"invalid_request_error","message":"`temperature` and `top_p` cannot both be specified for this model. Please use only one."},"request_id":"req_011CTgm6qdMaHyp798uf9Ykh"}';
    const error = mapAnthropicError('anthropic', 400, {}, text);
    expect(error).toMatchObject({ status: 400, retryable: false, type: 'invalid_request_error', code: null });
    expect(error.message).toBe(
      'anthropic: invalid_request_error: `temperature` and `top_p` cannot both be specified for this model. Please use only one. (request_id req_011CTgm6qdMaHyp798uf9Ykh)',
    );
  });

  it('529 overloaded_error (recorded body): retryable, answered as 503', () => {
    const error = mapAnthropicError('anthropic', 529, {}, '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
    expect(error).toMatchObject({ upstreamStatus: 529, status: 503, retryable: true, type: 'server_error' });
    expect(error.message).toBe('anthropic: overloaded_error: Overloaded');
  });

  it('429 with retry-after: not retryable, the wait passed on to the client', () => {
    const error = mapAnthropicError('anthropic', 429, { 'retry-after': '12' }, body('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'));
    expect(error).toMatchObject({ status: 429, retryable: false, retryAfterMs: 12_000, type: 'rate_limit_error', code: 'rate_limit_exceeded', headers: { 'retry-after': '12' } });
  });

  it('429 without retry-after: retryable elsewhere', () => {
    expect(mapAnthropicError('anthropic', 429, {}, body('rate_limit_error', 'Rate limited'))).toMatchObject({ status: 429, retryable: true, retryAfterMs: undefined });
  });

  it('429 spend limit (details.error_code): insufficient_quota, not retryable even without retry-after', () => {
    const error = mapAnthropicError('anthropic', 429, {}, body('rate_limit_error', 'Spend limit reached', { error_code: 'enforced_spend_limit_reached' }));
    expect(error).toMatchObject({ status: 429, retryable: false, type: 'insufficient_quota', code: 'insufficient_quota' });
  });

  it.each([
    [403, 'permission_error', 403, false, 'permission_error', null],
    [404, 'not_found_error', 404, false, 'invalid_request_error', 'model_not_found'],
    [500, 'api_error', 500, true, 'server_error', null],
    [504, 'timeout_error', 504, true, 'server_error', null],
    [402, 'billing_error', 402, false, 'insufficient_quota', 'insufficient_quota'],
  ])('%i %s -> client %i, retryable %s, type %s, code %s', (status, anthropicType, clientStatus, retryable, type, code) => {
    const error = mapAnthropicError('anthropic', status, {}, body(anthropicType, 'x'));
    expect(error).toMatchObject({ status: clientStatus, retryable, type, code });
    expect(error.message).toContain(`${anthropicType}: x`);
  });

  it('413 from Cloudflare with an HTML body: named by its status; retryable as the shared status rule says', () => {
    const error = mapAnthropicError('anthropic', 413, { 'request-id': 'req_cf' }, '<html><body>413 Request Entity Too Large</body></html>');
    expect(error).toMatchObject({ status: 413, retryable: isRetryableStatus(413, undefined), code: 'request_too_large' });
    expect(error.message).toContain('request_too_large: <html>');
    expect(error.message).toContain('(request_id req_cf)');
  });

  it('a 502 from a gateway with an empty body is retryable', () => {
    const error = mapAnthropicError('anthropic', 502, {}, '');
    expect(error).toMatchObject({ status: 502, retryable: true, type: 'server_error' });
    expect(error.message).toBe('anthropic: HTTP 502');
  });
});

describe('mapStreamError', () => {
  it('overloaded_error mid-stream: retryable, kind stream, counted as 529', () => {
    expect(mapStreamError('anthropic', { type: 'overloaded_error', message: 'Overloaded' })).toMatchObject({ kind: 'stream', retryable: true, upstreamStatus: 529, status: 503 });
  });

  it('a non-5xx error type mid-stream still ends the stream as a retryable 502', () => {
    expect(mapStreamError('anthropic', { type: 'invalid_request_error', message: 'bad' })).toMatchObject({ kind: 'stream', retryable: true, upstreamStatus: 502, type: 'invalid_request_error' });
  });
});
