import type { EmbeddingRequest } from '../protocols/openai/request-schemas.ts';
import { countTokens } from '../tokens/count-tokens.ts';
import { minTokensForBytes } from '../tokens/token-bounds.ts';

/**
 * Prompt tokens of an embeddings request, for upstreams that report no usage (Together's
 * embeddings answer has no `usage`, §5.4). Text is counted with gpt-tokenizer (OpenAI's o200k
 * encoding) on the counting thread: an estimate, since the embedding model's own tokenizer (BERT
 * WordPiece for BGE) differs. When the count is unknown (too large or too slow), a quarter of the
 * bytes, within the byte bounds. Token-id inputs count as their length, never as text.
 */
export async function estimateEmbeddingTokens(input: EmbeddingRequest['input']): Promise<number> {
  const items: unknown[] = typeof input === 'string' ? [input] : input;
  let total = 0;
  for (const item of items) {
    if (typeof item === 'number') total++;
    else if (Array.isArray(item)) total += item.length;
    else if (typeof item === 'string') {
      const bytes = Buffer.byteLength(item);
      const counted = await countTokens(item, bytes);
      total += counted ? counted.tokens : Math.max(minTokensForBytes(bytes), Math.ceil(bytes / 4));
    }
  }
  return total;
}
