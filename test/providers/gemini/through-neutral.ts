// The Gemini adapter's chat path as one function each, for the mapper tests: OpenAI chat request ->
// neutral (the OpenAI codec) -> Gemini body, and Gemini answers/events -> neutral parts -> OpenAI
// answer/chunks. The tests assert what an OpenAI client sends and receives; the neutral model
// between is the adapters' one mapping (core/protocols/README.md).
import { decodeChatRequest } from '../../../core/protocols/openai/decode-chat-request.ts';
import { createAnswerState, encodeChatChunk, encodeChatCompletion, endChatChunks, type AnswerState } from '../../../core/protocols/openai/encode-chat-answer.ts';
import type { ChatCompletion, ChatCompletionChunk } from '../../../core/protocols/openai/chat-types.ts';
import type { ChatRequest } from '../../../core/protocols/openai/request-schemas.ts';
import type { GeminiRequest, GeminiResponse } from '../../../core/providers/gemini/gemini-wire.ts';
import { mapNeutralRequest } from '../../../core/providers/gemini/map-neutral-request.ts';
import { createStreamState as createGeminiState, finishAnswer, isStreamComplete, mapStreamEvent as mapGeminiEvent, type StreamState as GeminiState } from '../../../core/providers/gemini/map-stream-event.ts';
import type { ToolCallIdSource } from '../../../core/providers/gemini/tool-call-id.ts';
import { refuseNativeOnly } from '../../../core/providers/refuse-native-only.ts';

export type { ChatCompletion, ChatCompletionChunk };

/** What the caller decides about an answer: its identity and how tool calls are presented. */
export interface AnswerContext {
  id: string;
  created: number;
  model: string;
  nextToolCallId: ToolCallIdSource;
  maxToolCalls: number;
}

export function mapChatRequest(chat: ChatRequest, model: string): GeminiRequest {
  const decoded = decodeChatRequest(chat);
  refuseNativeOnly(decoded.nativeOnly, 'google', { id: `google/${model}` }, 'a model that supports it');
  return mapNeutralRequest(decoded.request, model);
}

export function mapResponse(response: GeminiResponse, context: AnswerContext): ChatCompletion {
  const mapped = mapGeminiEvent(response, createGeminiState(context));
  return encodeChatCompletion([...mapped.parts, ...finishAnswer(mapped.state)], context);
}

export interface StreamState {
  gemini: GeminiState;
  answer: AnswerState;
}

export function createStreamState(context: AnswerContext, includeUsage: boolean): StreamState {
  return { gemini: createGeminiState(context), answer: createAnswerState(context, includeUsage) };
}

export function mapStreamEvent(event: GeminiResponse, state: StreamState): { chunks: ChatCompletionChunk[]; state: StreamState } {
  const mapped = mapGeminiEvent(event, state.gemini);
  let answer = state.answer;
  const chunks: ChatCompletionChunk[] = [];
  for (const part of mapped.parts) {
    const step = encodeChatChunk(part, answer);
    answer = step.state;
    chunks.push(...step.chunks);
  }
  return { chunks, state: { gemini: mapped.state, answer } };
}

export function finishStream(state: StreamState): { chunks: ChatCompletionChunk[]; complete: boolean } {
  const complete = isStreamComplete(state.gemini);
  return { chunks: complete ? endChatChunks(state.answer) : [], complete };
}
