import type { NeutralUsage } from '../../protocols/neutral/neutral-usage.ts';
import type { GeminiUsageMetadata } from './gemini-wire.ts';

/**
 * Gemini usageMetadata -> neutral usage (reference 7.5). candidatesTokenCount counts the visible
 * output only, so thoughts are added to it (they are billed as output); tool-use prompt tokens
 * (input Gemini reads from its own tools) are added to the prompt, which already counts the
 * cached tokens (cachedContentTokenCount).
 */
export function mapUsage(metadata: GeminiUsageMetadata): NeutralUsage {
  const thoughts = metadata.thoughtsTokenCount ?? 0;
  return {
    inputTokens: (metadata.promptTokenCount ?? 0) + (metadata.toolUsePromptTokenCount ?? 0),
    outputTokens: (metadata.candidatesTokenCount ?? 0) + thoughts,
    cacheReadTokens: metadata.cachedContentTokenCount ?? 0,
    cacheWriteTokens: 0,
    reasoningTokens: thoughts,
  };
}
