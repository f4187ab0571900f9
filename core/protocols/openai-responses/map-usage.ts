import type { NeutralUsage } from '../neutral/neutral-usage.ts';
import type { Usage } from '../openai/chat-types.ts';

/**
 * The Responses API's usage object. Both detail objects are always written, with every field the
 * spec requires of them: Codex refuses a response.completed without them, and typed clients
 * parsing by OpenAI's OpenAPI spec refuse one without `cache_write_tokens`.
 */
export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/**
 * Neutral usage -> Responses: input counts cached tokens and output counts reasoning tokens, as in
 * neutral; the tokens written to a prompt cache (Anthropic's cache_creation_input_tokens, every
 * lifetime) are `cache_write_tokens`, 0 where the upstream writes none or does not say.
 */
export function encodeResponsesUsage(usage: NeutralUsage): ResponsesUsage {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens, cache_write_tokens: usage.cacheWriteTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/** A Responses usage object as an upstream sent it (pass-through) -> the totals a usage row is fed from. */
export function readResponsesUsage(usage: unknown): Usage | null {
  if (!usage || typeof usage !== 'object') return null;
  const u = usage as { input_tokens?: unknown; output_tokens?: unknown };
  const input = typeof u.input_tokens === 'number' ? u.input_tokens : 0;
  const output = typeof u.output_tokens === 'number' ? u.output_tokens : 0;
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
}
