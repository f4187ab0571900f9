import type { TogetherLogprobs } from './map-chat-logprobs.ts';

/** OpenAI's legacy completions `choices[].logprobs` (§1.5). */
export interface OpenAiCompletionLogprobs {
  tokens: string[];
  token_logprobs: (number | null)[];
  top_logprobs: Record<string, number>[] | null;
  text_offset: number[];
}

/**
 * Together's completions logprobs (§5.2: no `text_offset`) to OpenAI's. Offsets are counted in
 * characters (code points, as OpenAI's Python service counts them) from `startOffset`: the
 * prompt's length for generated text, 0 for an echoed prompt.
 */
export function mapTogetherCompletionLogprobs(logprobs: TogetherLogprobs, startOffset: number): OpenAiCompletionLogprobs {
  const tokens = (logprobs.tokens ?? []).map((token) => token ?? '');
  const tokenLogprobs = tokens.map((_, i) => logprobs.token_logprobs?.[i] ?? null);
  const top = Array.isArray(logprobs.top_logprobs) ? tokens.map((_, i) => (logprobs.top_logprobs as Record<string, number>[])[i] ?? {}) : null;
  const offsets: number[] = [];
  let offset = startOffset;
  for (const token of tokens) {
    offsets.push(offset);
    offset += characterCount(token);
  }
  return { tokens, token_logprobs: tokenLogprobs, top_logprobs: top, text_offset: offsets };
}

/** Prompt logprobs (echo) followed by those of the generated text. */
export function concatCompletionLogprobs(first: OpenAiCompletionLogprobs, second: OpenAiCompletionLogprobs): OpenAiCompletionLogprobs {
  return {
    tokens: [...first.tokens, ...second.tokens],
    token_logprobs: [...first.token_logprobs, ...second.token_logprobs],
    top_logprobs: first.top_logprobs || second.top_logprobs ? [...topOrEmpty(first), ...topOrEmpty(second)] : null,
    text_offset: [...first.text_offset, ...second.text_offset],
  };
}

function topOrEmpty(logprobs: OpenAiCompletionLogprobs): Record<string, number>[] {
  return logprobs.top_logprobs ?? logprobs.tokens.map(() => ({}));
}

export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
