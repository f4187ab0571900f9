import type { EmbeddingRequest } from '../../protocols/openai/request-schemas.ts';
import { encodeFloat32Base64 } from '../encode-float32-base64.ts';
import { estimateEmbeddingTokens } from '../estimate-embedding-tokens.ts';

export interface EmbeddingAnswer {
  data?: { embedding?: unknown }[];
  usage?: { prompt_tokens?: number; total_tokens?: number } | null;
}

/**
 * Brings an embeddings answer to what the client asked for, in place; true when it changed.
 * Applies to every upstream but costs nothing when the answer is already right: base64 is
 * produced here only when the client asked for it and the upstream sent floats (Together never
 * takes `encoding_format`; some local servers ignore it), and usage is estimated only when the
 * upstream reported none (Together, §5.4).
 */
export async function mapEmbeddingAnswer(answer: EmbeddingAnswer, request: EmbeddingRequest): Promise<boolean> {
  let changed = false;
  if (request.encoding_format === 'base64') {
    for (const item of answer.data ?? []) {
      if (Array.isArray(item.embedding)) {
        item.embedding = encodeFloat32Base64(item.embedding as number[]);
        changed = true;
      }
    }
  }
  if (!answer.usage || typeof answer.usage.prompt_tokens !== 'number') {
    const tokens = await estimateEmbeddingTokens(request.input);
    answer.usage = { prompt_tokens: tokens, total_tokens: tokens };
    changed = true;
  }
  return changed;
}
