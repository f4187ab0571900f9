import { ProviderError } from '../errors/provider-error.ts';
import type { NeutralRequest } from '../protocols/neutral/neutral-request.ts';
import type { PartStream, StreamPart } from '../protocols/neutral/stream-part.ts';
import { createChunkState, decodeChatChunk, finishChunks } from '../protocols/openai/decode-chat-chunk.ts';
import { encodeChatRequest } from '../protocols/openai/encode-chat-request.ts';
import { keepOwnReasoning } from './keep-own-reasoning.ts';
import type { ProviderAdapter, UpstreamCall } from './provider-adapter.ts';

/**
 * A neutral request answered by an adapter's OpenAI chat stream: neutral -> OpenAI chat request
 * -> the adapter (which does its own upstream mapping, quirks and errors) -> neutral parts. An
 * OpenAI chat history has no place for reasoning: what was signed is left out and said so. The
 * first part is read before this resolves, so a failure up to the upstream's first chunk is
 * still the attempt's and routing can fall back.
 */
export async function streamNeutralViaChat(adapter: ProviderAdapter, request: NeutralRequest, call: UpstreamCall): Promise<PartStream> {
  const reply = await adapter.streamChat(encodeChatRequest(keepOwnReasoning(request, call)), call, true);
  const provider = call.provider.name;
  async function* parts(): AsyncGenerator<StreamPart> {
    let state = createChunkState();
    try {
      for (let next = await reply.chunks.next(); !next.done; next = await reply.chunks.next()) {
        let chunk: unknown;
        try {
          chunk = JSON.parse(next.value);
        } catch {
          throw new ProviderError({ provider, upstreamStatus: 502, message: 'sent a stream chunk that is not JSON', retryable: true, kind: 'stream' });
        }
        const step = decodeChatChunk(chunk as Parameters<typeof decodeChatChunk>[0], state);
        state = step.state;
        yield* step.parts;
      }
      yield* finishChunks(state);
    } finally {
      await reply.chunks.return?.();
    }
  }
  return { parts: parts() };
}
