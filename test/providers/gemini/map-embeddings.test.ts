import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../core/errors/patchbay-error.ts';
import type { EmbeddingRequest } from '../../../core/protocols/openai/request-schemas.ts';
import { encodeFloat32Base64 } from '../../../core/providers/encode-float32-base64.ts';
import { embeddingInputs, mapEmbeddingBatches, mapEmbeddingResponse, readBatchVectors } from '../../../core/providers/gemini/map-embeddings.ts';

const request = (fields: Partial<EmbeddingRequest>): EmbeddingRequest => ({ model: 'gemini-embedding-001', input: 'x', ...fields }) as EmbeddingRequest;

function decodeFloat32(base64: string): number[] {
  const buf = Buffer.from(base64, 'base64');
  return [...new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4)];
}

describe('Gemini embeddings mapping (reference 3.5, 7.8)', () => {
  it('builds the reference batchEmbedContents body, one request per input', () => {
    const req = request({ input: ['first', 'second'], dimensions: 768 });
    expect(mapEmbeddingBatches(embeddingInputs(req), req, 'gemini-embedding-001')).toEqual([
      {
        requests: [
          { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'first' }] }, outputDimensionality: 768 },
          { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'second' }] }, outputDimensionality: 768 },
        ],
      },
    ]);
  });

  it('sends a single string as a batch of one, without outputDimensionality unless asked', () => {
    const req = request({ input: 'What is the meaning of life?' });
    expect(mapEmbeddingBatches(embeddingInputs(req), req, 'gemini-embedding-001')).toEqual([
      { requests: [{ model: 'models/gemini-embedding-001', content: { parts: [{ text: 'What is the meaning of life?' }] } }] },
    ]);
  });

  it('splits into calls of at most 100 inputs, in order', () => {
    const texts = Array.from({ length: 250 }, (_, i) => `t${i}`);
    const batches = mapEmbeddingBatches(texts, request({ input: texts }), 'gemini-embedding-001');
    expect(batches.map((b) => b.requests.length)).toEqual([100, 100, 50]);
    expect(batches[2].requests[0].content.parts[0].text).toBe('t200');
  });

  it('refuses token-id inputs, naming input', () => {
    for (const input of [[1, 2, 3], [[1, 2], [3]]]) {
      try {
        embeddingInputs(request({ input }));
        throw new Error('expected a refusal');
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidRequestError);
        expect((error as InvalidRequestError).param).toBe('input');
      }
    }
  });

  it('reads batch vectors and notices a count that does not match', () => {
    expect(readBatchVectors({ embeddings: [{ values: [0.01, 0.02] }, { values: [0.03, 0.04] }] }, 2)).toEqual([
      [0.01, 0.02],
      [0.03, 0.04],
    ]);
    expect(readBatchVectors({ embeddings: [{ values: [0.01] }] }, 2)).toBeUndefined();
    expect(readBatchVectors({ embeddings: [{}, { values: [1] }] }, 2)).toBeUndefined();
    expect(readBatchVectors({}, 1)).toBeUndefined();
  });

  it('answers an OpenAI list with index = input position and the given usage estimate', () => {
    const list = mapEmbeddingResponse([[0.01, 0.02], [0.03, 0.04]], request({ input: ['first', 'second'] }), 'gemini-embedding-001', 2);
    expect(list).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.01, 0.02] },
        { object: 'embedding', index: 1, embedding: [0.03, 0.04] },
      ],
      model: 'gemini-embedding-001',
      usage: { prompt_tokens: 2, total_tokens: 2 },
    });
  });

  it('produces base64 as little-endian float32 that decodes back to the values', () => {
    const values = [0.0123, -0.0456, 0.0789, 1, -2.5];
    const list = mapEmbeddingResponse([values], request({ encoding_format: 'base64' }), 'gemini-embedding-001', 1);
    const encoded = list.data[0].embedding as string;
    expect(typeof encoded).toBe('string');
    expect(Buffer.from(encoded, 'base64')).toHaveLength(values.length * 4);
    expect(decodeFloat32(encoded)).toEqual(values.map(Math.fround));
    // Byte order is fixed, not the host's: 1.0f is 00 00 80 3f.
    expect(Buffer.from(encodeFloat32Base64([1]), 'base64')).toEqual(Buffer.from([0x00, 0x00, 0x80, 0x3f]));
  });
});
