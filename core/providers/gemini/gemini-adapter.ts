import { ProviderError } from '../../errors/provider-error.ts';
import { lateSystemMessages } from '../../protocols/neutral/late-system-messages.ts';
import type { NeutralRequest } from '../../protocols/neutral/neutral-request.ts';
import type { PartStream, StreamPart } from '../../protocols/neutral/stream-part.ts';
import type { ChatRequest, CompletionRequest, EmbeddingRequest } from '../../protocols/openai/request-schemas.ts';
import { chatViaNeutral, streamChatViaNeutral } from '../chat-via-neutral.ts';
import { estimateEmbeddingTokens } from '../estimate-embedding-tokens.ts';
import { completeViaChat, streamCompleteViaChat } from '../complete-via-chat.ts';
import type { JsonReply, NeutralEntry, ProviderAdapter, StreamReply, UpstreamCall } from '../provider-adapter.ts';
import { readSseEvents } from '../read-sse-events.ts';
import { postToProvider, postToProviderForText } from '../post-to-provider.ts';
import type { UpstreamResponse } from '../upstream-response.ts';
import type { GeminiBatchEmbedResponse, GeminiErrorStatus, GeminiResponse } from './gemini-wire.ts';
import { embeddingInputs, mapEmbeddingBatches, mapEmbeddingResponse, readBatchVectors } from './map-embeddings.ts';
import { mapGeminiError, mapGeminiErrorBody, mapGeminiStreamError } from './map-error.ts';
import { keepOwnReasoning } from '../keep-own-reasoning.ts';
import { mapNeutralRequest } from './map-neutral-request.ts';
import { createStreamState, finishAnswer, isStreamComplete, mapStreamEvent, type StreamState } from './map-stream-event.ts';
import { randomToolCallId } from './tool-call-id.ts';

/**
 * Google's Generative Language API (v1beta). Chat goes through the neutral model: a neutral
 * request is mapped to Gemini's wire and the answer back to neutral parts by the pure mappers in
 * this folder (every ingress protocol decodes to and encodes from those); this class only sends
 * and reads. Legacy completions go through chat.
 */
export class GeminiAdapter implements ProviderAdapter {
  private readonly connectTimeoutMs: number;
  readonly neutral: NeutralEntry;

  constructor(connectTimeoutMs: number) {
    this.connectTimeoutMs = connectTimeoutMs;
    this.neutral = {
      stream: (request, call) => this.streamNeutral(request, call),
      answer: (request, call) => this.answerNeutral(request, call),
    };
  }

  chat(request: ChatRequest, call: UpstreamCall): Promise<JsonReply> {
    return chatViaNeutral(this.neutral, request, call);
  }

  streamChat(request: ChatRequest, call: UpstreamCall, includeUsage: boolean): Promise<StreamReply> {
    return streamChatViaNeutral(this.neutral, request, call, includeUsage);
  }

  private async answerNeutral(request: NeutralRequest, call: UpstreamCall): Promise<StreamPart[]> {
    const body = mapRequest(request, call);
    const answer = parseJson<GeminiResponse>(call, await this.sendForText('generateContent', body, call));
    const mapped = mapStreamEvent(answer, answerState(request));
    return [...mapped.parts, ...finishAnswer(mapped.state)];
  }

  private async streamNeutral(request: NeutralRequest, call: UpstreamCall): Promise<PartStream> {
    const body = mapRequest(request, call);
    const response = await this.send('streamGenerateContent?alt=sse', body, call);
    const provider = call.provider.name;
    let state = answerState(request);
    async function* parts(): AsyncGenerator<StreamPart> {
      for await (const event of readSseEvents(provider, response, call.signal)) {
        if (event.data.trim() === '') continue;
        const parsed = parseJson<GeminiResponse>(call, event.data, 'stream');
        if (parsed.error) throw mapGeminiStreamError(provider, parsed.error);
        const mapped = mapStreamEvent(parsed, state);
        state = mapped.state;
        yield* mapped.parts;
      }
      if (!isStreamComplete(state)) {
        throw new ProviderError({ provider, upstreamStatus: 502, message: 'the stream ended before the answer finished (no finishReason)', retryable: true, kind: 'stream' });
      }
    }
    return { parts: parts() };
  }

  complete(request: CompletionRequest, call: UpstreamCall): Promise<JsonReply> {
    return completeViaChat(this, request, call);
  }

  streamComplete(request: CompletionRequest, call: UpstreamCall, includeUsage: boolean): Promise<StreamReply> {
    return streamCompleteViaChat(this, request, call, includeUsage);
  }

  /**
   * batchEmbedContents, 100 inputs a call, one call after another so a failure stops the rest.
   * Gemini reports no token usage for embeddings; Patchbay counts the inputs with gpt-tokenizer
   * (OpenAI's o200k encoding), an estimate of Gemini's own count, so that usage and cost are not zero.
   */
  async embed(request: EmbeddingRequest, call: UpstreamCall): Promise<JsonReply> {
    const model = call.endpoint.model;
    const texts = embeddingInputs(request);
    const vectors: number[][] = [];
    for (const batch of mapEmbeddingBatches(texts, request, model)) {
      const answer = parseJson<GeminiBatchEmbedResponse>(call, await this.sendForText('batchEmbedContents', batch, call));
      const batchVectors = readBatchVectors(answer, batch.requests.length);
      if (!batchVectors) {
        throw new ProviderError({ provider: call.provider.name, upstreamStatus: 502, message: 'answered with a different number of embeddings than inputs', retryable: true });
      }
      vectors.push(...batchVectors);
    }
    const promptTokens = await estimateEmbeddingTokens(texts);
    const list = mapEmbeddingResponse(vectors, request, model, promptTokens);
    return { body: JSON.stringify(list), usage: { prompt_tokens: promptTokens, completion_tokens: 0, total_tokens: promptTokens } };
  }

  private send(method: string, body: object, call: UpstreamCall): Promise<UpstreamResponse> {
    return postToProvider({ call, url: this.url(method, call), body, accept: 'text/event-stream', connectTimeoutMs: this.connectTimeoutMs, mapError: mapGeminiError });
  }

  private async sendForText(method: string, body: object, call: UpstreamCall): Promise<string> {
    return (await postToProviderForText({ call, url: this.url(method, call), body, connectTimeoutMs: this.connectTimeoutMs, mapError: mapGeminiError })).text;
  }

  private url(method: string, call: UpstreamCall): string {
    return `${call.provider.baseUrl.replace(/\/+$/, '')}/models/${call.endpoint.model}:${method}`;
  }
}

/** The generateContent body, with only Gemini's own signatures replayed (keepOwnReasoning), and what its mapping changed said on the attempt (a late system message's position). */
function mapRequest(request: NeutralRequest, call: UpstreamCall) {
  const body = mapNeutralRequest(keepOwnReasoning(request, call), call.endpoint.model);
  for (const source of lateSystemMessages(request)) call.adjustments?.adjust(`${source}=systemInstruction (Gemini has no system turn inside a conversation)`);
  return body;
}

function answerState(request: NeutralRequest): StreamState {
  return createStreamState({ nextToolCallId: randomToolCallId, maxToolCalls: request.toolChoice?.parallel === false ? 1 : Number.POSITIVE_INFINITY });
}

function parseJson<T>(call: UpstreamCall, text: string, kind: 'http' | 'stream' = 'http'): T {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    const what = kind === 'stream' ? 'a stream event' : 'a body';
    throw new ProviderError({ provider: call.provider.name, upstreamStatus: 502, message: `answered with ${what} that is not a JSON object`, retryable: true, kind });
  }
  // A 200 whose body is an error is that error (otherwise it reads as an empty answer); stream events are checked by the stream.
  const failure = (parsed as { error?: GeminiErrorStatus }).error;
  if (kind === 'http' && failure && typeof failure === 'object') throw mapGeminiErrorBody(call.provider.name, failure);
  return parsed as T;
}
