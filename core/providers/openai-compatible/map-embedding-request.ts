import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import type { EmbeddingRequest } from '../../protocols/openai/request-schemas.ts';
import type { OpenAiQuirks } from './quirks.ts';

/**
 * The embeddings body sent upstream. Fields the upstream does not take are dropped: Together
 * (§5.4) takes no `encoding_format` (base64 is then produced by Patchbay) and no `dimensions`
 * (a model's only size is its native one: asking for exactly that is kept, anything else is
 * refused, though routing already needs the `dimensions` capability for it).
 */
export function mapEmbeddingRequest(request: EmbeddingRequest, model: string, quirks: OpenAiQuirks, nativeDimensions: number | undefined, provider = 'this provider'): Record<string, unknown> {
  const body: Record<string, unknown> = { ...request, model };
  if (quirks.droppedEmbeddingFields.length === 0 && !quirks.textOnlyEmbeddings) return body;
  if (quirks.textOnlyEmbeddings && !isText(request.input)) {
    throw new InvalidRequestError(`${provider} embeds text only; send 'input' as a string or an array of strings.`, 'input', 'unsupported_parameter');
  }
  if (quirks.droppedEmbeddingFields.includes('dimensions') && request.dimensions !== undefined && request.dimensions !== nativeDimensions) {
    throw new InvalidRequestError(`${provider} cannot shorten embeddings; remove 'dimensions' or choose a model that supports it.`, 'dimensions', 'unsupported_parameter');
  }
  for (const field of quirks.droppedEmbeddingFields) delete body[field];
  return body;
}

function isText(input: EmbeddingRequest['input']): boolean {
  return typeof input === 'string' || (input as unknown[]).every((item) => typeof item === 'string');
}
