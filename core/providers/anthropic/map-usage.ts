import type { AnthropicUsage } from './anthropic-wire-types.ts';
import type { ChatUsage } from '../../protocols/openai/chat-types.ts';
import type { Usage } from '../provider-adapter.ts';

/**
 * Anthropic usage -> OpenAI usage (reference §7.5). Anthropic's `input_tokens` leaves out the
 * tokens read from and written to the prompt cache; OpenAI's `prompt_tokens` counts every prompt
 * token, so the three are added, and the cache reads are also shown as `cached_tokens`.
 * `output_tokens` already includes thinking tokens.
 */
export function mapUsage(usage: AnthropicUsage | undefined): ChatUsage {
  const input = count(usage?.input_tokens);
  const cacheWrite = count(usage?.cache_creation_input_tokens);
  const cacheRead = count(usage?.cache_read_input_tokens);
  const prompt = input + cacheWrite + cacheRead;
  const completion = count(usage?.output_tokens);
  const mapped: ChatUsage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cacheRead },
  };
  const thinking = usage?.output_tokens_details?.thinking_tokens;
  if (typeof thinking === 'number') mapped.completion_tokens_details = { reasoning_tokens: thinking };
  return mapped;
}

/**
 * The usage reported for the usage row: the OpenAI usage plus the cache writes by lifetime, which
 * OpenAI's usage has no field for (so they never go into the answer). Writes Anthropic does not
 * split by lifetime are 5-minute writes, its default.
 */
export function reportUsage(usage: AnthropicUsage | undefined | null): Usage {
  const mapped: Usage = mapUsage(usage ?? undefined);
  const written = count(usage?.cache_creation_input_tokens);
  if (written > 0) {
    const tokens1h = count(usage?.cache_creation?.ephemeral_1h_input_tokens);
    mapped.cacheWrite = { tokens5m: Math.max(0, written - tokens1h), tokens1h };
  }
  return mapped;
}

/** Adds usages, for the n requests behind one n > 1 answer. */
export function sumUsage(usages: ChatUsage[]): ChatUsage {
  const sum: ChatUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, prompt_tokens_details: { cached_tokens: 0 } };
  for (const usage of usages) {
    sum.prompt_tokens += usage.prompt_tokens;
    sum.completion_tokens += usage.completion_tokens;
    sum.total_tokens += usage.total_tokens;
    sum.prompt_tokens_details.cached_tokens += usage.prompt_tokens_details.cached_tokens;
    if (usage.completion_tokens_details) {
      sum.completion_tokens_details = { reasoning_tokens: (sum.completion_tokens_details?.reasoning_tokens ?? 0) + usage.completion_tokens_details.reasoning_tokens };
    }
  }
  return sum;
}

function count(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
