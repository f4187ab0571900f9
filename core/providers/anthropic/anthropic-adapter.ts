import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import { ProviderError } from '../../errors/provider-error.ts';
import type { ChatRequest, CompletionRequest, EmbeddingRequest } from '../../protocols/openai/request-schemas.ts';
import type { CancelSignal } from '../cancel-signal.ts';
import { completeViaChat, streamCompleteViaChat } from '../complete-via-chat.ts';
import type { JsonReply, MessagesPassThrough, ProviderAdapter, StreamReply, UpstreamCall, Usage } from '../provider-adapter.ts';
import { countMessageTokens, forwardMessages, forwardMessagesStream } from './forward-messages.ts';
import { readSseEvents } from '../read-sse-events.ts';
import { postToProvider, postToProviderForText, type UpstreamResponse } from '../transport.ts';
import type { MessageResponse, MessagesRequest } from './anthropic-wire-types.ts';
import { mapAnthropicError, statusOfAnthropicError } from './map-error.ts';
import { mapChatRequest, type MappedRequest } from './map-request.ts';
import { mapMessageResponse } from './map-response.ts';
import { createStreamState, endStream, mapStreamEvent } from './map-stream-event.ts';
import { mergeChunkStreams, mergeCompletions, type ChunkStream } from './merge-choices.ts';
import type { ChatCompletion, ChatUsage } from '../../protocols/openai/chat-types.ts';
import { reportUsage } from './map-usage.ts';

/**
 * The Anthropic Messages API. Requests are translated to Anthropic's wire format and answers back
 * to OpenAI's; the mapping lives in the pure map-* files, this class only sends and reads.
 */
export class AnthropicAdapter implements ProviderAdapter {
  private readonly connectTimeoutMs: number;
  readonly messages: MessagesPassThrough;

  constructor(connectTimeoutMs: number) {
    this.connectTimeoutMs = connectTimeoutMs;
    this.messages = {
      create: (forwarded, call) => forwardMessages(forwarded, call, connectTimeoutMs),
      stream: (forwarded, call) => forwardMessagesStream(forwarded, call, connectTimeoutMs),
      countTokens: (forwarded, call) => countMessageTokens(forwarded, call, connectTimeoutMs),
    };
  }

  async chat(request: ChatRequest, call: UpstreamCall): Promise<JsonReply> {
    const mapped = mapChatRequest(request, call.endpoint);
    const n = request.n ?? 1;
    let completions: ChatCompletion[];
    if (n === 1) {
      const { completion, usage } = await this.sendForCompletion(mapped, call);
      return { body: JSON.stringify(completion), usage };
    } else {
      // One request per choice; the first failure cancels the others, their answers being of no use.
      const shared = linkAbortSignal(call.signal);
      try {
        const answers = await Promise.all(Array.from({ length: n }, () => this.sendForCompletion(mapped, { ...call, signal: shared.signal })));
        completions = answers.map((answer) => answer.completion);
      } finally {
        shared.close();
      }
    }
    const completion = mergeCompletions(completions);
    return { body: JSON.stringify(completion), usage: completion.usage };
  }

  async streamChat(request: ChatRequest, call: UpstreamCall, includeUsage: boolean): Promise<StreamReply> {
    const mapped = mapChatRequest(request, call.endpoint);
    const n = request.n ?? 1;
    if (n === 1) return serialize(await this.openStream(mapped, call, includeUsage));
    // All n streams are open before this returns, so a refusal of any can still fall back.
    const shared = linkAbortSignal(call.signal);
    let streams: ChunkStream[];
    try {
      streams = await Promise.all(Array.from({ length: n }, () => this.openStream(mapped, { ...call, signal: shared.signal }, false)));
    } catch (error) {
      shared.close();
      throw error;
    }
    return serialize(mergeChunkStreams(streams, includeUsage, shared.close));
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

  /** One Messages call: the OpenAI answer, and the usage for the row (with the cache writes the answer has no field for). */
  private async sendForCompletion(mapped: MappedRequest, call: UpstreamCall): Promise<{ completion: ChatCompletion; usage: Usage }> {
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
    return { completion: mapMessageResponse(message, { created: nowSeconds(), jsonToolName: mapped.jsonToolName }), usage: reportUsage(message.usage) };
  }

  private async openStream(mapped: MappedRequest, call: UpstreamCall, includeUsage: boolean): Promise<ChunkStream> {
    const response = await this.send({ ...mapped.body, stream: true }, call);
    const provider = call.provider.name;
    let state = createStreamState({ provider, includeUsage, created: nowSeconds(), jsonToolName: mapped.jsonToolName });
    async function* chunks() {
      for await (const event of readSseEvents(provider, response, call.signal)) {
        const step = mapStreamEvent(event, state);
        state = step.state;
        yield* step.chunks;
      }
      endStream(state);
    }
    return { chunks: chunks(), usage: () => (state.usage ? (reportUsage(state.usage) as ChatUsage) : null) };
  }

  /** Opens a streamed Messages call (non-streaming calls read their answer whole with postToProviderForText). */
  private send(body: MessagesRequest, call: UpstreamCall): Promise<UpstreamResponse> {
    return postToProvider({
      call,
      url: `${call.provider.baseUrl}/messages`,
      body,
      accept: 'text/event-stream',
      connectTimeoutMs: this.connectTimeoutMs,
      mapError: mapAnthropicError,
    });
  }
}

function serialize(stream: ChunkStream): StreamReply {
  async function* chunks() {
    try {
      for (let next = await stream.chunks.next(); !next.done; next = await stream.chunks.next()) yield JSON.stringify(next.value);
    } finally {
      // A consumer that stops early must stop the upstream reads too (and, for n > 1, release the shared signal).
      await stream.chunks.return?.();
    }
  }
  return { chunks: chunks(), usage: stream.usage };
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

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
