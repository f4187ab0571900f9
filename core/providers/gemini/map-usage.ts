import type { Usage } from '../provider-adapter.ts';
import type { GeminiUsageMetadata } from './gemini-wire.ts';

/** OpenAI usage with the detail objects OpenAI always sends. */
export interface OpenAiUsage extends Usage {
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

/**
 * Gemini usageMetadata to OpenAI usage (reference 7.5). OpenAI counts reasoning inside
 * completion_tokens and cached input inside prompt_tokens, so thoughts are added to the visible
 * output and tool-use prompt tokens (input Gemini reads from its own tools) to the prompt.
 */
export function mapUsage(metadata: GeminiUsageMetadata): OpenAiUsage {
  const prompt = (metadata.promptTokenCount ?? 0) + (metadata.toolUsePromptTokenCount ?? 0);
  const thoughts = metadata.thoughtsTokenCount ?? 0;
  const completion = (metadata.candidatesTokenCount ?? 0) + thoughts;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: metadata.totalTokenCount ?? prompt + completion,
    prompt_tokens_details: { cached_tokens: metadata.cachedContentTokenCount ?? 0 },
    completion_tokens_details: { reasoning_tokens: thoughts },
  };
}
