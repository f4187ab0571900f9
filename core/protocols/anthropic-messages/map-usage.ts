import type { NeutralUsage } from '../neutral/neutral-usage.ts';

/** Anthropic's usage object, as it arrives (message, message_start, message_delta: any field may be missing or null). */
export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
}

/**
 * Anthropic usage -> neutral. Anthropic's input_tokens leaves out the cached part; the neutral
 * inputTokens counts every prompt token, so reads and writes are added back.
 */
export function decodeAnthropicUsage(usage: AnthropicUsage): NeutralUsage {
  const cacheRead = count(usage.cache_read_input_tokens);
  const cacheWrite = count(usage.cache_creation_input_tokens);
  const neutral: NeutralUsage = {
    inputTokens: count(usage.input_tokens) + cacheRead + cacheWrite,
    outputTokens: count(usage.output_tokens),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: count(usage.output_tokens_details?.thinking_tokens),
  };
  if (usage.cache_creation) {
    neutral.cacheWrite5mTokens = count(usage.cache_creation.ephemeral_5m_input_tokens);
    neutral.cacheWrite1hTokens = count(usage.cache_creation.ephemeral_1h_input_tokens);
  }
  return neutral;
}

/** Neutral usage -> the usage object of a Message and of message_start / message_delta. */
export function encodeAnthropicUsage(usage: NeutralUsage): Record<string, unknown> {
  const encoded: Record<string, unknown> = {
    input_tokens: Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens),
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    output_tokens: usage.outputTokens,
  };
  if (usage.cacheWrite5mTokens !== undefined || usage.cacheWrite1hTokens !== undefined) {
    encoded.cache_creation = { ephemeral_5m_input_tokens: usage.cacheWrite5mTokens ?? 0, ephemeral_1h_input_tokens: usage.cacheWrite1hTokens ?? 0 };
  }
  return encoded;
}

/** Later non-null counts win: message_delta's usage is cumulative and may leave input counts null. */
export function mergeAnthropicUsage(current: AnthropicUsage | null, update: AnthropicUsage | null | undefined): AnthropicUsage | null {
  if (!update) return current;
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(update)) if (value != null) merged[key] = value;
  return merged as AnthropicUsage;
}

function count(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
