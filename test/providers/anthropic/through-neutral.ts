// The Anthropic adapter's OpenAI-chat path as one function each, for the mapper tests: OpenAI chat
// request -> neutral (the OpenAI codec) -> Messages body, and Anthropic answers/events -> neutral
// parts -> OpenAI answer/chunks. The tests assert what an OpenAI client sends and receives; the
// neutral model between is the adapters' one mapping (core/protocols/README.md).
import type { EventSourceMessage } from 'eventsource-parser';
import { decodeAnthropicUsage, type AnthropicUsage } from '../../../core/protocols/anthropic-messages/map-usage.ts';
import type { ChatCompletion, ChatCompletionChunk, ChatUsage, FinishReason } from '../../../core/protocols/openai/chat-types.ts';
import { decodeChatRequest } from '../../../core/protocols/openai/decode-chat-request.ts';
import { createAnswerState, encodeChatChunk, encodeChatCompletion, endChatChunks, type AnswerState } from '../../../core/protocols/openai/encode-chat-answer.ts';
import { encodeOpenAiUsage } from '../../../core/protocols/openai/map-usage.ts';
import type { ChatMessage, ChatRequest } from '../../../core/protocols/openai/request-schemas.ts';
import type { MessageResponse } from '../../../core/providers/anthropic/anthropic-wire-types.ts';
import { mapNeutralRequest, type MappedRequest } from '../../../core/providers/anthropic/map-neutral-request.ts';
import { mapFinishReason as neutralFinish } from '../../../core/providers/anthropic/map-finish-reason.ts';
import * as events from '../../../core/providers/anthropic/map-stream-event.ts';
import { refuseNativeOnly } from '../../../core/providers/refuse-native-only.ts';

const SONNET = { model: 'claude-sonnet-4-5-20250929', maxOutput: 64000 };

export function mapChatRequest(chat: ChatRequest, endpoint: { model: string; maxOutput: number } = SONNET): MappedRequest {
  const decoded = decodeChatRequest(chat);
  refuseNativeOnly(decoded.nativeOnly, 'anthropic', { id: `anthropic/${endpoint.model}` }, 'a model that supports it');
  return mapNeutralRequest(decoded.request, endpoint);
}

export function mapMessages(messages: ChatMessage[]): { system: MappedRequest['body']['system']; messages: MappedRequest['body']['messages'] } {
  const { body } = mapChatRequest({ model: 'claude-sonnet-4-5', messages } as ChatRequest);
  return { system: body.system, messages: body.messages };
}

export function mapMessageResponse(message: MessageResponse, context: { created: number; jsonToolName: string | null }): ChatCompletion {
  return encodeChatCompletion(events.mapMessage(message, context.jsonToolName), { id: 'chatcmpl-unused', created: context.created, model: '' });
}

/** stop_reason as an OpenAI client sees it, with or without a tool call reaching it. */
export function mapFinishReason(stopReason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  const parts = [
    { type: 'start' as const, id: 'msg_x', model: 'm' },
    ...(hasToolCalls ? [{ type: 'tool-call-start' as const, id: 't', name: 'f' }] : []),
    { type: 'finish' as const, reason: neutralFinish(stopReason), usage: null },
  ];
  return encodeChatCompletion(parts, { id: 'x', created: 0, model: 'm' }).choices[0].finish_reason;
}

export function mapUsage(usage: AnthropicUsage | undefined): ChatUsage {
  return encodeOpenAiUsage(decodeAnthropicUsage(usage ?? {}));
}

export interface StreamState {
  anthropic: events.StreamState;
  answer: AnswerState;
}

export function createStreamState(options: { provider: string; includeUsage: boolean; created: number; jsonToolName: string | null }): StreamState {
  return {
    anthropic: events.createStreamState({ provider: options.provider, jsonToolName: options.jsonToolName }),
    answer: createAnswerState({ id: 'chatcmpl-unused', created: options.created, model: '' }, options.includeUsage),
  };
}

/** One event through both mappers; the usage chunk comes when the stream ends (message_stop), as OpenAI sends it last. */
export function mapStreamEvent(event: EventSourceMessage | { event?: string; data: string }, state: StreamState): { chunks: ChatCompletionChunk[]; state: StreamState } {
  const step = events.mapStreamEvent(event, state.anthropic);
  let answer = state.answer;
  const chunks: ChatCompletionChunk[] = [];
  for (const part of step.parts) {
    const encoded = encodeChatChunk(part, answer);
    answer = encoded.state;
    chunks.push(...encoded.chunks);
  }
  if (step.state.phase === 'stopped' && state.anthropic.phase !== 'stopped') chunks.push(...endChatChunks(answer));
  return { chunks, state: { anthropic: step.state, answer } };
}

export function endStream(state: StreamState): void {
  events.endStream(state.anthropic);
}

export function streamUsage(state: StreamState): ChatUsage | null {
  return state.answer.usage ? encodeOpenAiUsage(state.answer.usage) : null;
}
