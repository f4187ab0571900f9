/**
 * Prompt size for eligibility and `auto`. Byte-level BPE never makes more tokens than UTF-8 bytes,
 * so the byte count is a safe upper bound; the real tokenizer (gpt-tokenizer, o200k) runs only when
 * that bound does not already prove the prompt fits, keeping the common request free of its cost.
 */
export interface PromptSize {
  /** UTF-8 bytes of every text the model will read: an upper bound on tokens. */
  bytes: number;
  /** The pieces, joined only if an exact count is needed (rarely), so a large prompt is not copied per request. */
  pieces: string[];
}

export function measurePrompt(texts: Iterable<string>): PromptSize {
  const pieces: string[] = [];
  let bytes = 0;
  for (const text of texts) {
    pieces.push(text);
    bytes += Buffer.byteLength(text) + 1;
  }
  return { bytes, pieces };
}

export { countTokens as countTokensExactly } from '../tokens/count-tokens.ts';

/** A rough count (four bytes a token) for choosing a tier; never for limits. */
export function roughTokens(size: PromptSize): number {
  return Math.ceil(size.bytes / 4);
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
