/**
 * Token counts of one answer in Patchbay's own terms, whatever the upstream calls them.
 * `inputTokens` counts every prompt token, cached ones included (OpenAI's prompt_tokens);
 * the cache and reasoning counts are parts of inputTokens / outputTokens, not additions.
 */
export interface NeutralUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The cache writes by lifetime, when the upstream says (Anthropic's cache_creation). */
  cacheWrite5mTokens?: number;
  cacheWrite1hTokens?: number;
  reasoningTokens: number;
}

export function emptyUsage(): NeutralUsage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
}
