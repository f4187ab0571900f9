import { describe, expect, it } from 'vitest';
import { mapOpenAiError } from '../../../core/providers/openai-compatible/map-error.ts';
import { GROQ_RATE_LIMIT, TOGETHER_ERROR, TOGETHER_LEGACY_ERROR } from './wire-fixtures.ts';

describe('mapOpenAiError', () => {
  it("reads Together's error with its top-level id (§5.6)", () => {
    const error = mapOpenAiError('together', 400, {}, TOGETHER_ERROR);
    expect(error).toMatchObject({ status: 400, type: 'invalid_request_error', code: 'model_not_available', param: null, retryable: false, provider: 'together' });
    expect(error.message).toContain('Unable to access non-serverless model');
    expect(error.toBody().error).toMatchObject({ code: 'model_not_available', provider: 'together' });
  });

  it("reads Together's legacy {error: string} body", () => {
    const error = mapOpenAiError('together', 422, {}, TOGETHER_LEGACY_ERROR);
    expect(error.message).toBe('together: Input validation error: inputs too long');
    expect(error).toMatchObject({ status: 422, type: 'invalid_request_error', code: null, param: null });
  });

  it("reads Groq's 429 without param, passing its retry window back (§4.5)", () => {
    const error = mapOpenAiError('groq', 429, { 'retry-after': '2' }, GROQ_RATE_LIMIT);
    expect(error).toMatchObject({ status: 429, type: 'tokens', code: 'rate_limit_exceeded', param: null, retryAfterMs: 2000, retryable: false });
    expect(error.headers).toEqual({ 'retry-after': '2' });
    expect(mapOpenAiError('groq', 429, {}, GROQ_RATE_LIMIT).retryable).toBe(true);
  });

  it("lets Groq's 413 (one request above the TPM limit) fall back to another provider (§4.5, §7.7)", () => {
    const error = mapOpenAiError('groq', 413, {}, GROQ_RATE_LIMIT.replace('Rate limit reached', 'Request too large'));
    expect(error).toMatchObject({ status: 413, code: 'rate_limit_exceeded', retryable: true });
  });

  it('copes with bodies that are not JSON, and with 503 capacity errors', () => {
    expect(mapOpenAiError('my-vllm', 502, {}, '<html>bad gateway</html>')).toMatchObject({ status: 502, retryable: true });
    expect(mapOpenAiError('together', 503, {}, '{"error":{"message":"no capacity","type":"server_error"}}')).toMatchObject({ status: 503, retryable: true });
    expect(mapOpenAiError('groq', 401, {}, '{"error":{"message":"Invalid API Key","type":"invalid_request_error","code":"invalid_api_key"}}').status).toBe(502);
  });
});
