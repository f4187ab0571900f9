import type { NeutralUsage } from '../neutral/neutral-usage.ts';
import type { Usage } from './chat-types.ts';

/** OpenAI usage as upstreams send it: the detail objects are optional and may be null. */
export interface OpenAiUsageIn extends Usage {
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
}

/** OpenAI usage -> neutral: prompt_tokens already counts cached tokens, completion_tokens reasoning ones. */
export function decodeOpenAiUsage(usage: OpenAiUsageIn): NeutralUsage {
  return {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
    cacheReadTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: 0,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
  };
}

/** Neutral usage -> the OpenAI totals a usage row is fed from. */
export function toOpenAiUsage(usage: NeutralUsage): Usage {
  return { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens };
}
