import { PatchbayError } from '../../errors/patchbay-error.ts';
import type { IngressCodec } from '../ingress-codec.ts';

const INTERNAL_BODY = { error: { message: 'Patchbay hit an internal error; the details are in its log.', type: 'server_error', param: null, code: 'internal_error' } };

/** OpenAI's error body for any error: a PatchbayError's own fields, anything else an opaque 500. */
export function openAiErrorBody(error: unknown): { error: Record<string, unknown> } {
  return error instanceof PatchbayError ? error.toBody() : INTERNAL_BODY;
}

/** OpenAI's wire (chat, completions, embeddings): `data: <json>` items, `[DONE]`, `{"error": {...}}`. */
export const openAiCodec: IngressCodec = {
  frame: (item) => `data: ${item}\n\n`,
  streamEnd: 'data: [DONE]\n\n',
  streamError: (error) => `data: ${JSON.stringify(openAiErrorBody(error))}\n\n`,
  errorAnswer: (error) => ({ status: error instanceof PatchbayError ? error.status : 500, body: openAiErrorBody(error) }),
};
