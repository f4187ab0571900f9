import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../core/errors/patchbay-error.ts';
import type { EmbeddingRequest } from '../../../core/protocols/openai/request-schemas.ts';
import { decodeFloat32Base64, encodeFloat32Base64 } from '../../../core/providers/encode-float32-base64.ts';
import { estimateEmbeddingTokens } from '../../../core/providers/estimate-embedding-tokens.ts';
import { mapEmbeddingAnswer, type EmbeddingAnswer } from '../../../core/providers/openai-compatible/map-embedding-answer.ts';
import { mapEmbeddingRequest } from '../../../core/providers/openai-compatible/map-embedding-request.ts';
import { quirksFor } from '../../../core/providers/openai-compatible/quirks.ts';

const together = quirksFor('together');

function embedding(extra: Partial<EmbeddingRequest> = {}): EmbeddingRequest {
  return { model: 'bge-base-en-v1.5', input: ['first text', 'second text'], ...extra } as EmbeddingRequest;
}

/** §5.4: Together's embeddings answer, which has no usage. */
function togetherAnswer(): EmbeddingAnswer {
  const answer = { object: 'list', model: 'BAAI/bge-base-en-v1.5', data: [{ object: 'embedding', index: 0, embedding: [0.5, -1.25, 3.1415927] }, { object: 'embedding', index: 1, embedding: [0, 1, -0] }] };
  return answer;
}

describe('encodeFloat32Base64 (§1.6: float32 little-endian, standard base64)', () => {
  it('produces the bytes openai-node decodes', () => {
    const text = encodeFloat32Base64([1, -2.5]);
    expect(text).toBe(Buffer.from([0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0]).toString('base64'));
    const bytes = Buffer.from(encodeFloat32Base64([0.1, 0.2, 0.3]), 'base64');
    expect([...new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)]).toEqual([...Float32Array.from([0.1, 0.2, 0.3])]);
    expect(decodeFloat32Base64(encodeFloat32Base64([0.5, 3]))).toEqual([0.5, 3]);
    expect(encodeFloat32Base64(new Array(1536).fill(0.25))).toHaveLength(8192);
  });
});

describe('mapEmbeddingRequest', () => {
  it('sends OpenAI the caller body with the model id', () => {
    const request = embedding({ encoding_format: 'base64', dimensions: 256, user: 'u' });
    expect(mapEmbeddingRequest(request, 'text-embedding-3-small', quirksFor('openai'), 1536)).toEqual({ ...request, model: 'text-embedding-3-small' });
  });

  it('sends Together {model, input} only (§5.4)', () => {
    const body = mapEmbeddingRequest(embedding({ encoding_format: 'base64', user: 'u', dimensions: 768 }), 'BAAI/bge-base-en-v1.5', together, 768);
    expect(body).toEqual({ model: 'BAAI/bge-base-en-v1.5', input: ['first text', 'second text'] });
  });

  it('refuses token-id inputs and a dimensions Together cannot produce', () => {
    expect(() => mapEmbeddingRequest(embedding({ input: [[1, 2]] }), 'm', together, 768)).toThrow(InvalidRequestError);
    expect(() => mapEmbeddingRequest(embedding({ dimensions: 256 }), 'm', together, 768)).toThrow(/dimensions/);
  });
});

describe('mapEmbeddingAnswer', () => {
  it('encodes floats as base64 when the client asked for base64, and estimates missing usage', async () => {
    const answer = togetherAnswer();
    expect(await mapEmbeddingAnswer(answer, embedding({ encoding_format: 'base64' }))).toBe(true);
    expect(decodeFloat32Base64(answer.data![0].embedding as string)).toEqual([...Float32Array.from([0.5, -1.25, 3.1415927])]);
    const tokens = await estimateEmbeddingTokens(['first text', 'second text']);
    expect(tokens).toBe(4);
    expect(answer.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens });
  });

  it('keeps floats when the client asked for floats or nothing', async () => {
    const answer = togetherAnswer();
    await mapEmbeddingAnswer(answer, embedding());
    expect(answer.data![1].embedding).toEqual([0, 1, -0]);
  });

  it('changes nothing in an OpenAI answer that already has base64 and usage', async () => {
    const answer: EmbeddingAnswer = { data: [{ embedding: encodeFloat32Base64([1]) }], usage: { prompt_tokens: 2, total_tokens: 2 } };
    const before = JSON.stringify(answer);
    expect(await mapEmbeddingAnswer(answer, embedding({ encoding_format: 'base64' }))).toBe(false);
    expect(JSON.stringify(answer)).toBe(before);
  });

  it('counts token-id inputs by their length', async () => {
    expect(await estimateEmbeddingTokens([1, 2, 3])).toBe(3);
    expect(await estimateEmbeddingTokens([[1, 2], [3]])).toBe(3);
  });
});
