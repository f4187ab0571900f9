import type { EmbeddingRequest } from '../http/request-schemas.ts';
import { countTokens } from '../tokens/count-tokens.ts';

/**
 * Prompt tokens of an embeddings request, for upstreams that report no usage (Together's
 * embeddings answer has no `usage`, §5.4). Text is counted with gpt-tokenizer (OpenAI's o200k
 * encoding): an estimate, since the embedding model's own tokenizer (BERT WordPiece for BGE)
 * differs. Token-id inputs count as their length.
 */
export async function estimateEmbeddingTokens(input: EmbeddingRequest['input']): Promise<number> {
  const items: unknown[] = typeof input === 'string' ? [input] : input;
  if (items.every((item) => typeof item === 'number')) return items.length;
  let total = 0;
  for (const item of items) {
    if (typeof item === 'string') {
      total += await countTokens(item);
    } else if (Array.isArray(item)) {
      total += item.length;
    }
  }
  return total;
}
