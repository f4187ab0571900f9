import { minTokensForBytes } from '../tokens/token-bounds.ts';

/**
 * Prompt size for eligibility and `auto`. Byte-level BPE never makes more tokens than UTF-8 bytes,
 * so the byte count is a safe upper bound, and o200k's longest token gives a lower bound
 * (token-bounds.ts); the real tokenizer (gpt-tokenizer, o200k, on a worker thread) runs only when
 * the bounds do not decide, keeping the common request free of its cost.
 */
export interface PromptSize {
  /** UTF-8 bytes of every text the model will read (+1 separator each): an upper bound on their tokens. */
  bytes: number;
  /** The pieces, joined only if an exact count is needed (rarely), so a large prompt is not copied per request. */
  pieces: string[];
  /** Tokens given as token ids: counted as they are, never turned into text. */
  ids: number;
}

export function measurePrompt(texts: Iterable<string>, ids = 0): PromptSize {
  const pieces: string[] = [];
  let bytes = 0;
  for (const text of texts) {
    pieces.push(text);
    bytes += Buffer.byteLength(text) + 1;
  }
  return { bytes, pieces, ids };
}

/** A prompt of strings or token ids (/v1/completions' `prompt`, /v1/embeddings' `input`, in all their forms). */
export function measureTextsOrIds(input: string | string[] | number[] | number[][]): PromptSize {
  if (typeof input === 'string') return measurePrompt([input]);
  let ids = 0;
  const texts: string[] = [];
  for (const item of input) {
    if (typeof item === 'string') texts.push(item);
    else if (typeof item === 'number') ids++;
    else ids += item.length;
  }
  return measurePrompt(texts, ids);
}

/** Fewest tokens the prompt can be. */
export function minTokens(size: PromptSize): number {
  return size.ids + minTokensForBytes(size.bytes);
}

/** Most tokens the prompt can be. */
export function maxTokens(size: PromptSize): number {
  return size.ids + size.bytes;
}

/** A rough count (four bytes a token) for choosing a tier and reserving; never for refusing. */
export function roughTokens(size: PromptSize): number {
  return size.ids + Math.ceil(size.bytes / 4);
}

/** Text pieces of chat messages (and tool definitions), for measuring. */
export function* chatTexts(messages: { content?: unknown; tool_calls?: unknown }[], tools?: unknown): Generator<string> {
  for (const message of messages) {
    const content = message.content;
    if (typeof content === 'string') yield content;
    else if (Array.isArray(content)) {
      for (const part of content) if (part && typeof part === 'object' && 'text' in part) yield String((part as { text: unknown }).text);
    }
    if (message.tool_calls) yield JSON.stringify(message.tool_calls);
  }
  if (tools) yield JSON.stringify(tools);
}
