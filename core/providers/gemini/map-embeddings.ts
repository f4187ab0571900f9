import { encodeFloat32Base64 } from '../encode-float32-base64.ts';
import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { EmbeddingRequest } from '../../protocols/openai/request-schemas.ts';
import { GEMINI_SETTINGS } from './gemini-settings.ts';
import type { GeminiBatchEmbedResponse, GeminiEmbedRequest } from './gemini-wire.ts';

export interface EmbeddingList {
  object: 'list';
  data: { object: 'embedding'; index: number; embedding: number[] | string }[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

/** The texts to embed, in input order; Gemini embeds text, not token ids. */
export function embeddingInputs(request: EmbeddingRequest): string[] {
  const input = request.input;
  if (typeof input === 'string') return [input];
  if (input.every((item): item is string => typeof item === 'string')) return input;
  throw new InvalidRequestError('Gemini embedding models take text: send input as a string or an array of strings, not token ids.', 'input');
}

/**
 * One batchEmbedContents body per 100 inputs, one request per input (several parts in one
 * request would give one embedding of them all). `dimensions` becomes outputDimensionality.
 * Gemini's taskType has no OpenAI counterpart and is left to its default.
 */
export function mapEmbeddingBatches(texts: string[], request: EmbeddingRequest, model: string): { requests: GeminiEmbedRequest[] }[] {
  const requests = texts.map(
    (text): GeminiEmbedRequest => ({
      model: `models/${model}`,
      content: { parts: [{ text }] },
      ...(request.dimensions !== undefined ? { outputDimensionality: request.dimensions } : {}),
    }),
  );
  const batches: { requests: GeminiEmbedRequest[] }[] = [];
  for (let start = 0; start < requests.length; start += GEMINI_SETTINGS.embedBatchLimit) {
    batches.push({ requests: requests.slice(start, start + GEMINI_SETTINGS.embedBatchLimit) });
  }
  return batches;
}

/** The vectors of one batch answer, in order; undefined when the answer does not hold `expected` of them. */
export function readBatchVectors(response: GeminiBatchEmbedResponse, expected: number): number[][] | undefined {
  const vectors = (response.embeddings ?? []).map((e) => e.values);
  if (vectors.length !== expected || !vectors.every((v): v is number[] => Array.isArray(v))) return undefined;
  return vectors;
}

/**
 * The OpenAI list: index = input position; base64 is produced here, since Gemini only sends
 * floats. Gemini reports no usage, so `promptTokens` is Patchbay's estimate (see the adapter).
 */
export function mapEmbeddingResponse(vectors: number[][], request: EmbeddingRequest, model: string, promptTokens: number): EmbeddingList {
  const base64 = request.encoding_format === 'base64';
  return {
    object: 'list',
    data: vectors.map((values, index) => ({ object: 'embedding', index, embedding: base64 ? encodeFloat32Base64(values) : values })),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
