import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import { ProviderError } from '../../errors/provider-error.ts';
import { lateSystemMessages } from '../../protocols/neutral/late-system-messages.ts';
import type { NeutralRequest } from '../../protocols/neutral/neutral-request.ts';
import type { PartStream, StreamPart } from '../../protocols/neutral/stream-part.ts';
import type { ChatRequest, CompletionRequest, EmbeddingRequest } from '../../protocols/openai/request-schemas.ts';
import type { CancelSignal } from '../cancel-signal.ts';
import { answerChat, chatViaNeutral, openChatChunks, serializeChunks, streamChatViaNeutral } from '../chat-via-neutral.ts';
import { completeViaChat, streamCompleteViaChat } from '../complete-via-chat.ts';
import type { JsonReply, MessagesPassThrough, NeutralEntry, ProviderAdapter, StreamReply, UpstreamCall } from '../provider-adapter.ts';
import { countMessageTokens, forwardMessages, forwardMessagesStream } from './forward-messages.ts';
import { readSseEvents } from '../read-sse-events.ts';
import { postToProvider, postToProviderForText } from '../post-to-provider.ts';
import type { MessageResponse } from './anthropic-wire-types.ts';
import { mapAnthropicError, statusOfAnthropicError } from './map-error.ts';
import { fitThinking } from './fit-thinking.ts';
import { keepOwnReasoning } from '../keep-own-reasoning.ts';
import { mapNeutralRequest, type MappedRequest } from './map-neutral-request.ts';
import { createStreamState, endStream, mapMessage, mapStreamEvent } from './map-stream-event.ts';
import { mergeChunkStreams, mergeCompletions } from './merge-choices.ts';

/**
 * The Anthropic Messages API. Messages in is passed through (forward-messages.ts); every other
 * ingress reaches it through the neutral model: the pure mappers in this folder map a neutral
 * request to Anthropic's wire and its answer back to neutral parts; this class only sends and reads.
 */
export class AnthropicAdapter implements ProviderAdapter {
  private readonly connectTimeoutMs: number;
  readonly messages: MessagesPassThrough;
  readonly neutral: NeutralEntry;

  constructor(connectTimeoutMs: number) {
    this.connectTimeoutMs = connectTimeoutMs;
    this.messages = {
      create: (forwarded, call) => forwardMessages(forwarded, call, connectTimeoutMs),
      stream: (forwarded, call) => forwardMessagesStream(forwarded, call, connectTimeoutMs),
      countTokens: (forwarded, call) => countMessageTokens(forwarded, call, connectTimeoutMs),
    };
    this.neutral = {
      stream: (request, call) => this.streamNeutral(request, call),
      answer: (request, call) => this.answerNeutral(request, call),
    };
  }

  /** Anthropic has no `n`: n > 1 is n requests of one answer each, merged (merge-choices.ts). */
  async chat(request: ChatRequest, call: UpstreamCall): Promise<JsonReply> {
    const n = request.n ?? 1;
    if (n === 1) return chatViaNeutral(this.neutral, request, call);
    // The first failure cancels the others, their answers being of no use.
    const shared = linkAbortSignal(call.signal);
    try {
      const answers = await Promise.all(Array.from({ length: n }, () => answerChat(this.neutral, request, { ...call, signal: shared.signal })));
      const completion = mergeCompletions(answers.map((a) => a.completion));
      return { body: JSON.stringify(completion), usage: completion.usage };
    } finally {
      shared.close();
    }
  }

  async streamChat(request: ChatRequest, call: UpstreamCall, includeUsage: boolean): Promise<StreamReply> {
    const n = request.n ?? 1;
    if (n === 1) return streamChatViaNeutral(this.neutral, request, call, includeUsage);
    // All n streams are open before this returns, so a refusal of any can still fall back.
    const shared = linkAbortSignal(call.signal);
    let streams;
    try {
      streams = await Promise.all(Array.from({ length: n }, () => openChatChunks(this.neutral, request, { ...call, signal: shared.signal }, false)));
    } catch (error) {
      shared.close();
      throw error;
    }
    const merged = mergeChunkStreams(streams, includeUsage, shared.close);
    return { chunks: serializeChunks(merged.chunks), usage: merged.usage };
  }

  complete(request: CompletionRequest, call: UpstreamCall): Promise<JsonReply> {
    return completeViaChat(this, request, call);
  }

  streamComplete(request: CompletionRequest, call: UpstreamCall, includeUsage: boolean): Promise<StreamReply> {
    return streamCompleteViaChat(this, request, call, includeUsage);
  }

  async embed(_request: EmbeddingRequest, _call: UpstreamCall): Promise<JsonReply> {
    throw new InvalidRequestError('Anthropic has no embeddings API; use an embedding model such as text-embedding-3-small', 'model', 'model_not_supported');
  }

  private async answerNeutral(request: NeutralRequest, call: UpstreamCall): Promise<StreamPart[]> {
    const mapped = mapRequest(request, call);
    const { text, headers } = await postToProviderForText({ call, url: `${call.provider.baseUrl}/messages`, body: mapped.body, connectTimeoutMs: this.connectTimeoutMs, mapError: mapAnthropicError });
    let message: MessageResponse;
    try {
      message = JSON.parse(text) as MessageResponse;
    } catch {
      throw new ProviderError({ provider: call.provider.name, upstreamStatus: 502, message: 'answered with a body that is not JSON', retryable: true });
    }
    // A 200 carrying Anthropic's error body (`{"type":"error","error":{type,message}}`) is that error, classified by its type.
    const failure = (message as { type?: unknown; error?: { type?: unknown } } | null)?.error;
    if (failure && typeof failure === 'object') throw mapAnthropicError(call.provider.name, statusOfAnthropicError(failure.type), headers, text);
    if (typeof message !== 'object' || message === null || !Array.isArray(message.content)) {
      throw new ProviderError({ provider: call.provider.name, upstreamStatus: 502, message: 'answered with JSON that is not a Messages response', retryable: true });
    }
    return mapMessage(message, mapped.jsonToolName);
  }

  private async streamNeutral(request: NeutralRequest, call: UpstreamCall): Promise<PartStream> {
    const mapped = mapRequest(request, call);
    const response = await postToProvider({
      call,
      url: `${call.provider.baseUrl}/messages`,
      body: { ...mapped.body, stream: true },
      accept: 'text/event-stream',
      connectTimeoutMs: this.connectTimeoutMs,
      mapError: mapAnthropicError,
    });
    const provider = call.provider.name;
    let state = createStreamState({ provider, jsonToolName: mapped.jsonToolName });
    async function* parts(): AsyncGenerator<StreamPart> {
      for await (const event of readSseEvents(provider, response, call.signal)) {
        const step = mapStreamEvent(event, state);
        state = step.state;
        yield* step.parts;
      }
      endStream(state);
    }
    return { parts: parts() };
  }
}

/** The Messages body for this call: only this provider's reasoning replayed, thinking fitted to the turn (fit-thinking.ts), and a late system message's position said on the attempt. */
function mapRequest(request: NeutralRequest, call: UpstreamCall): MappedRequest {
  const mapped = mapNeutralRequest(keepOwnReasoning(request, call), call.endpoint);
  for (const source of lateSystemMessages(request)) call.adjustments?.adjust(`${source}=system (the top-level system prompt: Anthropic takes no system turn inside a conversation here)`);
  return { ...mapped, body: fitThinking(mapped.body, call) };
}

/**
 * A signal that fires when the client's does, or when `close` is called; `close` also removes the
 * listener on the client's signal, so nothing outlives the request.
 */
function linkAbortSignal(parent: CancelSignal): { signal: AbortSignal; close: () => void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    close: () => {
      parent.removeEventListener('abort', onAbort);
      controller.abort();
    },
  };
}
