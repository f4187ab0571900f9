import { ProviderError } from '../../errors/provider-error.ts';
import { completeViaChat, streamCompleteViaChat } from '../complete-via-chat.ts';
import type { ChatRequest, CompletionRequest, EmbeddingRequest } from '../../http/request-schemas.ts';
import type { JsonReply, ProviderAdapter, StreamReply, UpstreamCall, Usage } from '../provider-adapter.ts';
import { readSseEvents } from '../read-sse-events.ts';
import { getUpstreamAgent, readBodyText, sendUpstream, type UpstreamResponse } from '../transport.ts';
import { mapOpenAiError } from './map-error.ts';
import { createPassThroughState, finishPassThrough, mapPassThroughChunk, normalizeUsage } from './map-stream-chunk.ts';
import { quirksFor } from './quirks.ts';

type Operation = 'chat/completions' | 'completions' | 'embeddings';

/**
 * OpenAI, Groq, Together and every user-defined OpenAI-compatible endpoint. The caller's body goes
 * upstream with the minimum of edits (the provider's model id, the usage option on streams) and
 * the answer comes back as it was, read only for its usage.
 */
export class OpenAiCompatibleAdapter implements ProviderAdapter {
  private readonly connectTimeoutMs: number;

  constructor(connectTimeoutMs: number) {
    this.connectTimeoutMs = connectTimeoutMs;
  }

  chat(request: ChatRequest, call: UpstreamCall): Promise<JsonReply> {
    return this.json('chat/completions', { ...request, model: call.endpoint.model }, call);
  }

  streamChat(request: ChatRequest, call: UpstreamCall, includeUsage: boolean): Promise<StreamReply> {
    return this.stream('chat/completions', request, call, includeUsage, 'chat.completion.chunk');
  }

  /** Native /completions where the upstream has it for this model (and on every user-defined endpoint); otherwise through chat. */
  complete(request: CompletionRequest, call: UpstreamCall): Promise<JsonReply> {
    if (!hasNativeCompletions(call)) return completeViaChat(this, request, call);
    return this.json('completions', { ...request, model: call.endpoint.model }, call);
  }

  streamComplete(request: CompletionRequest, call: UpstreamCall, includeUsage: boolean): Promise<StreamReply> {
    if (!hasNativeCompletions(call)) return streamCompleteViaChat(this, request, call, includeUsage);
    return this.stream('completions', request, call, includeUsage, 'text_completion');
  }

  embed(request: EmbeddingRequest, call: UpstreamCall): Promise<JsonReply> {
    return this.json('embeddings', { ...request, model: call.endpoint.model }, call);
  }

  private async json(operation: Operation, body: object, call: UpstreamCall): Promise<JsonReply> {
    const response = await this.send(operation, body, call);
    const text = await readBodyText(call.provider.name, response, call.signal);
    let usage: Usage | null = null;
    try {
      const parsed = JSON.parse(text) as { usage?: Usage };
      usage = parsed.usage ? normalizeUsage(parsed.usage as Usage & Record<string, unknown>) : null;
    } catch {
      throw new ProviderError({ provider: call.provider.name, upstreamStatus: 502, message: 'answered with a body that is not JSON', retryable: true });
    }
    return { body: text, usage };
  }

  private async stream(operation: Operation, request: ChatRequest | CompletionRequest, call: UpstreamCall, includeUsage: boolean, object: string): Promise<StreamReply> {
    const body: Record<string, unknown> = { ...request, model: call.endpoint.model, stream: true };
    if (quirksFor(call.provider.name).streamUsageOption) {
      body.stream_options = { ...(request.stream_options ?? {}), include_usage: true };
    }
    const response = await this.send(operation, body, call);
    const state = createPassThroughState(includeUsage, object);
    const provider = call.provider.name;
    async function* chunks(): AsyncGenerator<string> {
      let done = false;
      for await (const event of readSseEvents(provider, response, call.signal)) {
        if (event.data === '[DONE]') {
          done = true;
          break;
        }
        if (event.event === 'error') throw streamError(provider, event.data);
        let out: string[];
        try {
          out = mapPassThroughChunk(event.data, state);
        } catch {
          throw streamError(provider, event.data);
        }
        // OpenAI reports a failure mid-stream as a data event carrying `error`.
        if (out.length === 1 && out[0].startsWith('{"error"')) throw streamError(provider, out[0]);
        yield* out;
      }
      if (!done) {
        throw new ProviderError({ provider, upstreamStatus: 502, message: 'the stream ended before it was complete', retryable: true, kind: 'stream' });
      }
      yield* finishPassThrough(state);
    }
    return { chunks: chunks(), usage: () => state.usage };
  }

  private async send(operation: Operation, body: object, call: UpstreamCall): Promise<UpstreamResponse> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...call.provider.headers };
    if (call.apiKey) headers.authorization = `Bearer ${call.apiKey}`;
    const response = await sendUpstream({
      provider: call.provider.name,
      url: `${call.provider.baseUrl}/${operation}`,
      headers,
      body: JSON.stringify(body),
      signal: call.signal,
      timeoutMs: call.firstByteTimeoutMs,
      dispatcher: getUpstreamAgent(this.connectTimeoutMs),
    });
    if (response.status >= 400) {
      const text = await readBodyText(call.provider.name, response, call.signal).catch(() => '');
      throw mapOpenAiError(call.provider.name, response.status, response.headers, text);
    }
    return response;
  }
}

function hasNativeCompletions(call: UpstreamCall): boolean {
  return call.endpoint.nativeCompletions || !call.provider.builtin;
}

function streamError(provider: string, data: string): ProviderError {
  let message = 'sent an error in the stream';
  let type: string | undefined;
  try {
    const parsed = JSON.parse(data) as { error?: { message?: string; type?: string } };
    if (parsed.error?.message) message = parsed.error.message;
    type = parsed.error?.type;
  } catch {
    message = 'sent a stream event that is not JSON';
  }
  return new ProviderError({ provider, upstreamStatus: 502, message, type, retryable: true, kind: 'stream' });
}
