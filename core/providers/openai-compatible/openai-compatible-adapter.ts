import { ProviderError } from '../../errors/provider-error.ts';
import { completeViaChat, streamCompleteViaChat } from '../complete-via-chat.ts';
import type { ChatRequest, CompletionRequest, EmbeddingRequest } from '../../protocols/openai/request-schemas.ts';
import type { JsonReply, ProviderAdapter, StreamReply, UpstreamCall, Usage } from '../provider-adapter.ts';
import { postToProvider, postToProviderForText } from '../post-to-provider.ts';
import type { UpstreamResponse } from '../upstream-response.ts';
import { completeEachPrompt, streamEachPrompt, type PromptTransport } from './complete-each-prompt.ts';
import { mapChatChoices } from './map-chat-choice.ts';
import { limitOpenAiRequest } from '../limit-max-tokens.ts';
import { mapChatRequest, requestedTopLogprobs, withStreaming } from './map-chat-request.ts';
import { mapCompletionRequests, textPrompts } from './map-completion-request.ts';
import { mapEmbeddingAnswer, type EmbeddingAnswer } from './map-embedding-answer.ts';
import { mapEmbeddingRequest } from './map-embedding-request.ts';
import { mapOpenAiError, statusOfErrorBody } from './map-error.ts';
import { createPassThroughState, finishPassThrough, mapPassThroughChunk, normalizeUsage } from './map-stream-chunk.ts';
import { quirksFor, type OpenAiQuirks } from './quirks.ts';
import { readUpstreamData } from './read-upstream-data.ts';
import { passAnswerThrough, PASS_THROUGH_AFTER_BYTES } from '../pass-answer-through.ts';

type Operation = 'chat/completions' | 'completions' | 'embeddings';

/** A parsed JSON answer, and its text and bytes for when nothing had to change. */
interface Answer {
  text: string;
  bytes: Buffer;
  parsed: { usage?: Usage | null; choices?: unknown };
  /** The reply when the answer went past its head and is passed through (only when the caller allowed it). */
  passed?: JsonReply;
}

/**
 * The chat fields this upstream does not take (quirks.droppedChatFields) that the caller set to
 * something that matters: said in X-Patchbay-Dropped and on the usage row. A field sent at its
 * no-op value (`frequency_penalty: 0`, `logprobs: false`, `logit_bias: {}`, as some SDKs and editors
 * always send) changes nothing when left out, so it is not reported.
 */
function reportDroppedFields(request: ChatRequest, quirks: OpenAiQuirks, call: UpstreamCall): void {
  for (const field of quirks.droppedChatFields) if (!isNoOp((request as Record<string, unknown>)[field])) call.adjustments?.drop(field);
}

function isNoOp(value: unknown): boolean {
  if (value == null || value === 0 || value === false) return true;
  return typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}

/**
 * OpenAI, Groq, Together and every user-defined OpenAI-compatible endpoint. The caller's body goes
 * upstream with the minimum of edits (the provider's model id, what its quirks table says) and
 * the answer comes back as it was, read for its usage, rewritten only where the provider's
 * dialect differs from OpenAI's (Together's finish reasons, logprobs and completions objects).
 */

export class OpenAiCompatibleAdapter implements ProviderAdapter {
  private readonly connectTimeoutMs: number;

  constructor(connectTimeoutMs: number) {
    this.connectTimeoutMs = connectTimeoutMs;
  }

  /**
   * With `passThrough`, an answer past its head is streamed to the caller (pass-answer-through.ts),
   * unless this provider's answers are rewritten (quirks.mapsChatAnswers: Groq, Together), which
   * needs the whole answer: those are held, up to the answer size limit.
   */
  async chat(request: ChatRequest, call: UpstreamCall, passThrough = false): Promise<JsonReply> {
    const quirks = quirksFor(call.provider.name);
    reportDroppedFields(request, quirks, call);
    const answer = await this.json('chat/completions', mapChatRequest(limitOpenAiRequest(request, call), call.endpoint.model, quirks, call.provider.name), call, passThrough && !quirks.mapsChatAnswers);
    if (answer.passed) return answer.passed;
    return reply(answer, mapChatChoices(answer.parsed, quirks, requestedTopLogprobs(request)));
  }

  async streamChat(request: ChatRequest, call: UpstreamCall, includeUsage: boolean): Promise<StreamReply> {
    const quirks = quirksFor(call.provider.name);
    reportDroppedFields(request, quirks, call);
    const body = withStreaming(mapChatRequest(limitOpenAiRequest(request, call), call.endpoint.model, quirks, call.provider.name), quirks);
    const state = createPassThroughState({ includeUsage, object: 'chat.completion.chunk', provider: call.provider.name, quirks, topLogprobs: requestedTopLogprobs(request) });
    return this.passThrough('chat/completions', body, call, state);
  }

  /** Native /completions where the upstream has it for this model (and on every user-defined endpoint); otherwise through chat. */
  async complete(request: CompletionRequest, call: UpstreamCall): Promise<JsonReply> {
    if (!hasNativeCompletions(call)) return completeViaChat(this, request, call);
    const quirks = quirksFor(call.provider.name);
    const bodies = mapCompletionRequests(limitOpenAiRequest(request, call), call.endpoint.model, quirks, call.provider.name);
    if (quirks.singlePromptCompletions) return completeEachPrompt(bodies, textPrompts(request.prompt), request, quirks, this.promptTransport(call));
    return reply(await this.json('completions', bodies[0], call), false);
  }

  async streamComplete(request: CompletionRequest, call: UpstreamCall, includeUsage: boolean): Promise<StreamReply> {
    if (!hasNativeCompletions(call)) return streamCompleteViaChat(this, request, call, includeUsage);
    const quirks = quirksFor(call.provider.name);
    const bodies = mapCompletionRequests(limitOpenAiRequest(request, call), call.endpoint.model, quirks, call.provider.name).map((body) => withStreaming(body, quirks));
    if (quirks.singlePromptCompletions) return streamEachPrompt(bodies, textPrompts(request.prompt), request, quirks, this.promptTransport(call), includeUsage);
    const state = createPassThroughState({ includeUsage, object: 'text_completion', provider: call.provider.name, quirks });
    return this.passThrough('completions', bodies[0], call, state);
  }

  async embed(request: EmbeddingRequest, call: UpstreamCall): Promise<JsonReply> {
    const quirks = quirksFor(call.provider.name);
    const body = mapEmbeddingRequest(request, call.endpoint.model, quirks, call.endpoint.dimensions, call.provider.name);
    const answer = await this.json('embeddings', body, call);
    return reply(answer, await mapEmbeddingAnswer(answer.parsed as EmbeddingAnswer, request));
  }

  private async json(operation: Operation, body: object, call: UpstreamCall, passThrough = false): Promise<Answer> {
    const answer = await postToProviderForText({
      call,
      url: `${call.provider.baseUrl}/${operation}`,
      body,
      connectTimeoutMs: this.connectTimeoutMs,
      mapError: mapOpenAiError,
      passThroughAfter: passThrough ? PASS_THROUGH_AFTER_BYTES : undefined,
    });
    const { text, bytes, headers } = answer;
    if (answer.rest) {
      const provider = call.provider.name;
      const passed = passAnswerThrough(provider, { ...answer, rest: answer.rest }, call.signal, {
        members: ['usage', 'error'],
        check(values) {
          if (values.error) throw mapOpenAiError(provider, statusOfErrorBody(values.error), headers, JSON.stringify({ error: values.error }));
        },
        usage: (values) => (values.usage && typeof values.usage === 'object' ? normalizeUsage(values.usage as Usage & Record<string, unknown>) : null),
      });
      return { text, bytes, parsed: {}, passed };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ProviderError({ provider: call.provider.name, upstreamStatus: 502, message: 'answered with a body that is not JSON', retryable: true });
    }
    if (typeof parsed !== 'object' || parsed === null) {
      throw new ProviderError({ provider: call.provider.name, upstreamStatus: 502, message: 'answered with JSON that is not an object', retryable: true });
    }
    // A 200 that carries an error is a failure like any other: mapped as its status would have been,
    // so fallback and health see it (an answer never has a top-level `error`).
    const failure = (parsed as { error?: unknown }).error;
    if (failure) throw mapOpenAiError(call.provider.name, statusOfErrorBody(failure), headers, text);
    return { text, bytes, parsed: parsed as Answer['parsed'] };
  }

  private async passThrough(operation: Operation, body: object, call: UpstreamCall, state: ReturnType<typeof createPassThroughState>): Promise<StreamReply> {
    const response = await this.send(operation, body, call);
    const chunks = readUpstreamData(call.provider.name, response, call.signal, (payload) => mapPassThroughChunk(payload, state), () => finishPassThrough(state));
    return { chunks, usage: () => state.usage };
  }

  private promptTransport(call: UpstreamCall): PromptTransport {
    return {
      provider: call.provider.name,
      json: async (body) => (await this.json('completions', body, call)).text,
      stream: async (body) => readUpstreamData(call.provider.name, await this.send('completions', body, call), call.signal),
    };
  }

  private send(operation: Operation, body: object, call: UpstreamCall): Promise<UpstreamResponse> {
    return postToProvider({ call, url: `${call.provider.baseUrl}/${operation}`, body, connectTimeoutMs: this.connectTimeoutMs, mapError: mapOpenAiError });
  }
}

/** The answer for the client: the upstream's own bytes unless a mapper changed the parsed answer. */
function reply(answer: Answer, changed: boolean): JsonReply {
  const usage = answer.parsed.usage;
  return {
    body: changed ? JSON.stringify(answer.parsed) : answer.text,
    bytes: changed ? undefined : answer.bytes,
    usage: usage ? normalizeUsage(usage as Usage & Record<string, unknown>) : null,
  };
}

function hasNativeCompletions(call: UpstreamCall): boolean {
  return call.endpoint.nativeCompletions || !call.provider.builtin;
}
