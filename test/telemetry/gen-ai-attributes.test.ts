import { describe, expect, it } from 'vitest';
import { isCapRefusal, operationName, providerName, requestAttributes } from '../../core/telemetry/gen-ai-attributes.ts';

describe('GenAI attributes from what Patchbay decoded', () => {
  it('names the operation per /v1 endpoint with the conventions\' values', () => {
    expect(['chat', 'messages', 'responses', 'completions', 'embeddings', 'count_tokens'].map(operationName)).toEqual(['chat', 'chat', 'chat', 'text_completion', 'embeddings', 'count_tokens']);
  });

  it('uses the conventions\' provider names where they differ from Patchbay\'s', () => {
    expect(['openai', 'anthropic', 'gemini', 'groq', 'my-ollama'].map(providerName)).toEqual(['openai', 'anthropic', 'gcp.gemini', 'groq', 'my-ollama']);
  });

  it("reads each ingress protocol's request parameters: Anthropic's stop_sequences and top_k, OpenAI's stop string and n", () => {
    expect(requestAttributes({ stop_sequences: ['\n\nHuman:'], top_k: 40, temperature: 1 }, 1024)).toEqual({
      'gen_ai.request.max_tokens': 1024,
      'gen_ai.request.stop_sequences': ['\n\nHuman:'],
      'gen_ai.request.top_k': 40,
      'gen_ai.request.temperature': 1,
    });
    expect(requestAttributes({ stop: 'END', n: 3, presence_penalty: 0.5, frequency_penalty: -0.5 }, undefined)).toEqual({
      'gen_ai.request.stop_sequences': ['END'],
      'gen_ai.request.choice.count': 3,
      'gen_ai.request.presence_penalty': 0.5,
      'gen_ai.request.frequency_penalty': -0.5,
    });
    expect(requestAttributes({ temperature: 'hot', stop: [1, 2] }, undefined)).toEqual({});
  });

  it("a cap refusal is Patchbay's own 429 for a key, before any provider was tried", () => {
    expect(isCapRefusal({ status: 429, errorType: 'insufficient_quota', attempts: [] })).toBe(true);
    expect(isCapRefusal({ status: 429, errorType: 'rate_limit_exceeded', attempts: [] })).toBe(true);
    expect(isCapRefusal({ status: 429, errorType: 'rate_limit_exceeded', attempts: [{ provider: 'groq', model: 'm', status: 429, error_type: 'rate_limit', message: null, latency_ms: 1 }] })).toBe(false);
  });
});
