import { describe, expect, it } from 'vitest';
import { decodeAnthropicUsage } from '../../../core/protocols/anthropic-messages/map-usage.ts';
import { toOpenAiUsage } from '../../../core/protocols/openai/map-usage.ts';

describe('Anthropic usage for the usage row (OpenAI ingress)', () => {
  it('keeps the cache writes by lifetime beside the OpenAI usage, where no answer serializes them', () => {
    const usage = toOpenAiUsage(
      decodeAnthropicUsage({
        input_tokens: 10,
        cache_creation_input_tokens: 100,
        cache_read_input_tokens: 50,
        cache_creation: { ephemeral_5m_input_tokens: 40, ephemeral_1h_input_tokens: 60 },
        output_tokens: 7,
        output_tokens_details: { thinking_tokens: 3 },
      }),
    );
    expect(usage).toMatchObject({ prompt_tokens: 160, completion_tokens: 7, prompt_tokens_details: { cached_tokens: 50 }, completion_tokens_details: { reasoning_tokens: 3 } });
    expect(usage.cacheWrite).toEqual({ tokens5m: 40, tokens1h: 60 });
  });

  it('counts writes that Anthropic does not split by lifetime as 5-minute writes, its default', () => {
    expect(toOpenAiUsage(decodeAnthropicUsage({ input_tokens: 1, cache_creation_input_tokens: 30, output_tokens: 2 })).cacheWrite).toEqual({ tokens5m: 30, tokens1h: 0 });
    expect(toOpenAiUsage(decodeAnthropicUsage({ input_tokens: 1, output_tokens: 2 })).cacheWrite).toBeUndefined();
  });
});
