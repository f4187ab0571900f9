import type { EmbeddingRequest } from '../../http/request-schemas.ts';

let tokenizer: Promise<{ countTokens: (text: string) => number }> | undefined;

/**
 * Prompt tokens of an embeddings request, for upstreams that report no usage (Together's
 * embeddings answer has no `usage`, §5.4). Text is counted with gpt-tokenizer (OpenAI's o200k
 * encoding): an estimate, since the embedding model's own tokenizer (BERT WordPiece for BGE)
 * differs. Token-id inputs count as their length. The tokenizer is loaded on first use only, so
 * startup and the common request never pay for it.
 */
export async function estimateEmbeddingTokens(input: EmbeddingRequest['input']): Promise<number> {
  const items: unknown[] = typeof input === 'string' ? [input] : input;
  if (items.every((item) => typeof item === 'number')) return items.length;
  let total = 0;
  for (const item of items) {
    if (typeof item === 'string') {
      tokenizer ??= import('gpt-tokenizer');
      total += (await tokenizer).countTokens(item);
    } else if (Array.isArray(item)) {
      total += item.length;
    }
  }
  return total;
}
