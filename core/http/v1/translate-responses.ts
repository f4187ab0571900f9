import { InvalidRequestError } from '../../errors/patchbay-error.ts';
import { ProviderError } from '../../errors/provider-error.ts';
import type { NeutralResponseFormat } from '../../protocols/neutral/neutral-request.ts';
import type { PartStream, StreamPart } from '../../protocols/neutral/stream-part.ts';
import type { ChatExtras, DecodedResponses } from '../../protocols/openai-responses/decode-request.ts';
import { createResponsesEncodeState, encodeResponse, encodeResponsesFailure, encodeResponsesPart, type ResponsesEncodeState } from '../../protocols/openai-responses/encode-stream.ts';
import { toOpenAiUsage } from '../../protocols/openai/map-usage.ts';
import type { JsonReply, ProviderAdapter, StreamReply, UpstreamCall, Usage } from '../../providers/provider-adapter.ts';
import { streamNeutralViaChat } from '../../providers/stream-neutral-via-chat.ts';
import { limitNeutralMaxTokens } from '../../providers/limit-max-tokens.ts';

/** The response object's fields known before output, for the model that answers. */
export type ResponseBaseFor = (model: string) => ResponsesEncodeState['base'];

/** A Responses request for an upstream other than OpenAI: refused first if it asks for what that upstream cannot do. */
function refuseNativeOnly(decoded: DecodedResponses, call: UpstreamCall): void {
  const first = decoded.nativeOnly[0];
  if (!first) return;
  throw new InvalidRequestError(
    `${call.provider.name} (${call.endpoint.id}) cannot ${first.what}; remove '${first.param}' or use an OpenAI model (e.g. openai/gpt-4.1).`,
    first.param,
    'unsupported_parameter',
  );
}

/**
 * What this upstream gets without, said in X-Patchbay-Dropped and on the usage row: built-in tools
 * the request offers without forcing them, the fields no translated upstream takes, and
 * prompt_cache_key where the upstream has no cache key (Anthropic and Gemini here; an
 * OpenAI-compatible adapter says so itself when its upstream does not take the field).
 */
function reportLeftOut(adapter: ProviderAdapter, decoded: DecodedResponses, call: UpstreamCall): void {
  for (const tool of decoded.builtIns) call.adjustments?.drop(`tools[${tool.type}]`);
  for (const field of decoded.leftOut) call.adjustments?.drop(field);
  if (adapter.neutral && decoded.extras.prompt_cache_key !== undefined) call.adjustments?.drop('prompt_cache_key');
}

/**
 * The adapter with the chat fields the neutral model has no place for yet (text.format as
 * response_format, reasoning.effort) added to the chat request it is handed. Each adapter maps
 * them as it does for /v1/chat/completions (Anthropic: JSON through a tool; Gemini: a response schema).
 */
export function withChatExtras(adapter: ProviderAdapter, extras: ChatExtras): ProviderAdapter {
  if (Object.values(extras).every((value) => value === undefined)) return adapter;
  return Object.create(adapter, {
    streamChat: { value: (request: Parameters<ProviderAdapter['streamChat']>[0], call: UpstreamCall, includeUsage: boolean) => adapter.streamChat({ ...request, ...extras }, call, includeUsage) },
  }) as ProviderAdapter;
}

/**
 * The upstream's neutral parts: through the adapter's own neutral entry when it has one (Anthropic,
 * Gemini: one translation, thinking and its signatures kept), else through its OpenAI chat stream,
 * which is then the upstream's wire (OpenAI-compatible providers).
 */
function openParts(adapter: ProviderAdapter, decoded: DecodedResponses, call: UpstreamCall): Promise<PartStream> {
  const request = { ...limitNeutralMaxTokens(decoded.request, call), model: call.endpoint.model };
  if (!adapter.neutral) return streamNeutralViaChat(withChatExtras(adapter, decoded.extras), request, call);
  const format = neutralFormat(decoded.extras.response_format);
  const thinking = thinkingFor(decoded.extras.reasoning_effort, request.maxTokens);
  return adapter.neutral.stream({ ...request, ...(format ? { responseFormat: format } : {}), ...(thinking ? { thinking } : {}) }, call);
}

/** Thinking budgets for reasoning.effort on upstreams that take a budget (Anthropic, Gemini). */
const EFFORT_BUDGETS: Record<string, number> = { low: 1024, medium: 4096, high: 16384, xhigh: 32768 };
/** Anthropic's smallest thinking budget; the answer's max_tokens must stay above the budget. */
const MIN_BUDGET = 1024;

/**
 * reasoning.effort as a thinking budget, so a model that thinks (Claude, Gemini) shows its reasoning
 * as reasoning items; `minimal` or `none` asks for none. A max_output_tokens too small to leave room
 * for an answer after the smallest budget asks for none either.
 */
export function thinkingFor(effort: string | undefined, maxTokens: number | undefined): { budgetTokens: number } | undefined {
  if (!effort || !(effort in EFFORT_BUDGETS)) return undefined;
  const budget = maxTokens === undefined ? EFFORT_BUDGETS[effort] : Math.min(EFFORT_BUDGETS[effort], maxTokens - 1);
  return budget >= MIN_BUDGET ? { budgetTokens: budget } : undefined;
}

/** text.format as the neutral model's JSON answer, named as the caller wrote it (text.format...) in any refusal. */
function neutralFormat(format: ChatExtras['response_format']): NeutralResponseFormat | undefined {
  if (!format) return undefined;
  if (format.type === 'json_object') return { type: 'json', source: 'text.format' };
  const spec = format.json_schema as { schema?: Record<string, unknown>; description?: string } | undefined;
  return { type: 'json', ...(spec?.schema ? { schema: spec.schema } : {}), ...(spec?.description ? { description: spec.description } : {}), source: 'text.format.schema' };
}

/** A whole response from an upstream that does not speak Responses: its answer streamed as neutral parts and collected. */
export async function translateResponse(adapter: ProviderAdapter, call: UpstreamCall, decoded: DecodedResponses, baseFor: ResponseBaseFor): Promise<JsonReply> {
  refuseNativeOnly(decoded, call);
  reportLeftOut(adapter, decoded, call);
  const stream = await openParts(adapter, decoded, call);
  const parts: StreamPart[] = [];
  for (let next = await stream.parts.next(); !next.done; next = await stream.parts.next()) parts.push(next.value);
  const response = encodeResponse(parts, createResponsesEncodeState(baseFor(call.endpoint.model), call.provider.name, decoded.toolNames));
  if (!response) throw new ProviderError({ provider: call.provider.name, upstreamStatus: 502, message: 'the answer ended before its finish', retryable: true });
  const finish = parts.find((p) => p.type === 'finish');
  return { body: JSON.stringify(response), usage: finish?.type === 'finish' && finish.usage ? toOpenAiUsage(finish.usage) : null };
}

/**
 * A Responses event stream from an upstream that does not speak Responses. The first item is
 * pulled before this resolves (by serve-routed, inside the attempt) and holds response.created
 * with the first output, so a failure before any output can still fall back. A failure after it
 * ends the stream with response.failed (numbered after the last event), then is rethrown so the
 * request is recorded as failed.
 */
export async function translateResponseStream(adapter: ProviderAdapter, call: UpstreamCall, decoded: DecodedResponses, baseFor: ResponseBaseFor): Promise<StreamReply> {
  refuseNativeOnly(decoded, call);
  reportLeftOut(adapter, decoded, call);
  const stream = await openParts(adapter, decoded, call);
  let usage: Usage | null = null;
  let state = createResponsesEncodeState(baseFor(call.endpoint.model), call.provider.name, decoded.toolNames);
  async function* events(): AsyncGenerator<string> {
    try {
      for (let next = await stream.parts.next(); !next.done; next = await stream.parts.next()) {
        const part = next.value;
        if (part.type === 'finish' && part.usage) usage = toOpenAiUsage(part.usage);
        const step = encodeResponsesPart(part, state);
        state = step.state;
        if (step.events !== '') yield step.events;
      }
      if (!state.finished) throw new ProviderError({ provider: call.provider.name, upstreamStatus: 502, message: 'the stream ended before its finish', retryable: true, kind: 'stream' });
    } catch (error) {
      if (state.started) yield encodeResponsesFailure(error, state);
      throw error;
    } finally {
      await stream.parts.return?.();
    }
  }
  return { chunks: events(), usage: () => usage };
}
