import { randomUUID } from 'node:crypto';
import { ProviderError } from '../../errors/provider-error.ts';
import type { ChatRequest, CompletionRequest, EmbeddingRequest } from '../../protocols/openai/request-schemas.ts';
import { estimateEmbeddingTokens } from '../estimate-embedding-tokens.ts';
import { completeViaChat, streamCompleteViaChat } from '../complete-via-chat.ts';
import type { JsonReply, ProviderAdapter, StreamReply, UpstreamCall } from '../provider-adapter.ts';
import { readSseEvents } from '../read-sse-events.ts';
import { postToProvider, postToProviderForText, type UpstreamResponse } from '../transport.ts';
import type { GeminiBatchEmbedResponse, GeminiErrorStatus, GeminiResponse } from './gemini-wire.ts';
import { embeddingInputs, mapEmbeddingBatches, mapEmbeddingResponse, readBatchVectors } from './map-embeddings.ts';
import { mapGeminiError, mapGeminiErrorBody, mapGeminiStreamError } from './map-error.ts';
import { mapChatRequest } from './map-request.ts';
import { mapResponse, type AnswerContext } from './map-response.ts';
import { createStreamState, finishStream, mapStreamEvent } from './map-stream-event.ts';
import { randomToolCallId } from './tool-call-id.ts';

/**
 * Google's Generative Language API (v1beta). Requests are translated by the pure mappers in this
 * folder; this class only sends them and reads the answers. Legacy completions go through chat.
 */
export class GeminiAdapter implements ProviderAdapter {
  private readonly connectTimeoutMs: number;

  constructor(connectTimeoutMs: number) {
    this.connectTimeoutMs = connectTimeoutMs;
  }

  async chat(request: ChatRequest, call: UpstreamCall): Promise<JsonReply> {
    const body = mapChatRequest(request, call.endpoint.model);
    const answer = parseJson<GeminiResponse>(call, await this.sendForText('generateContent', body, call));
    const completion = mapResponse(answer, answerContext(request, call));
    return { body: JSON.stringify(completion), usage: completion.usage ?? null };
  }

  async streamChat(request: ChatRequest, call: UpstreamCall, includeUsage: boolean): Promise<StreamReply> {
    const body = mapChatRequest(request, call.endpoint.model);
    const response = await this.send('streamGenerateContent?alt=sse', body, call);
    const provider = call.provider.name;
    let state = createStreamState(answerContext(request, call), includeUsage);
    async function* chunks(): AsyncGenerator<string> {
      for await (const event of readSseEvents(provider, response, call.signal)) {
        if (event.data.trim() === '') continue;
        const parsed = parseJson<GeminiResponse>(call, event.data, 'stream');
        if (parsed.error) throw mapGeminiStreamError(provider, parsed.error);
        const mapped = mapStreamEvent(parsed, state);
        state = mapped.state;
        for (const chunk of mapped.chunks) yield JSON.stringify(chunk);
      }
      const end = finishStream(state);
      if (!end.complete) {
        throw new ProviderError({ provider, upstreamStatus: 502, message: 'the stream ended before the answer finished (no finishReason)', retryable: true, kind: 'stream' });
      }
      for (const chunk of end.chunks) yield JSON.stringify(chunk);
    }
    return { chunks: chunks(), usage: () => state.usage };
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

function answerContext(request: ChatRequest, call: UpstreamCall): AnswerContext {
  return {
    id: `chatcmpl-${randomUUID().replaceAll('-', '')}`,
    created: Math.floor(Date.now() / 1000),
    model: call.endpoint.model,
    nextToolCallId: randomToolCallId,
    maxToolCalls: request.parallel_tool_calls === false ? 1 : Number.POSITIVE_INFINITY,
  };
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
