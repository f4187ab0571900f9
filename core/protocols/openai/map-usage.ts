import type { NeutralUsage } from '../neutral/neutral-usage.ts';
import type { ChatUsage, Usage } from './chat-types.ts';

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

/** Neutral usage -> the usage object of an OpenAI answer, with both detail objects as OpenAI sends them. */
export function encodeOpenAiUsage(usage: NeutralUsage): ChatUsage & { completion_tokens_details: { reasoning_tokens: number } } {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}

/** What a usage row is fed from: OpenAI's usage with its details, plus the cache writes OpenAI has no field for. */
export interface ReportedUsage extends Usage {
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
  cacheWrite?: { tokens5m: number; tokens1h: number };
}

/**
 * Neutral usage -> OpenAI's usage with its details. Cache writes not split by lifetime count as
 * 5-minute writes, Anthropic's default (and cheaper) lifetime.
 */
export function toOpenAiUsage(usage: NeutralUsage): ReportedUsage {
  const reported: ReportedUsage = encodeOpenAiUsage(usage);
  if (usage.cacheWriteTokens > 0) {
    const tokens1h = usage.cacheWrite1hTokens ?? 0;
    reported.cacheWrite = { tokens5m: usage.cacheWrite5mTokens ?? usage.cacheWriteTokens - tokens1h, tokens1h };
  }
  return reported;
}
