import type { GeminiCandidate, GeminiFunctionCall, GeminiResponse } from './gemini-wire.ts';
import { mapFinishReason, type OpenAiFinishReason } from './map-finish-reason.ts';
import { mapUsage, type OpenAiUsage } from './map-usage.ts';
import { toolCallIdFor, type ToolCallIdSource } from './tool-call-id.ts';

/** What the caller decides about an answer: its identity and how tool calls are presented. */
export interface AnswerContext {
  /** `chatcmpl-...`, made by the caller: Gemini's responseId is not an OpenAI id. */
  id: string;
  created: number;
  /** The endpoint's model id, used when Gemini does not name its modelVersion. */
  model: string;
  nextToolCallId: ToolCallIdSource;
  /** 1 when the caller sent parallel_tool_calls: false (Gemini has no such switch); else unlimited. */
  maxToolCalls: number;
}

export interface OpenAiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: { role: 'assistant'; content: string | null; refusal: null; tool_calls?: OpenAiToolCall[] };
    logprobs: null;
    finish_reason: OpenAiFinishReason;
  }[];
  usage?: OpenAiUsage;
}

/**
 * A generateContent answer to an OpenAI chat.completion: one choice per candidate, thought
 * summaries left out, function calls as tool calls. A prompt Gemini refused to answer (no
 * candidates, promptFeedback.blockReason) is one empty choice ending in content_filter.
 */
export function mapResponse(response: GeminiResponse, context: AnswerContext): ChatCompletion {
  const candidates = response.candidates ?? [];
  const choices: ChatCompletion['choices'] =
    candidates.length > 0
      ? candidates.map((candidate, position) => mapCandidate(candidate, position, context))
      : [{ index: 0, message: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: response.promptFeedback?.blockReason ? 'content_filter' : 'stop' }];
  choices.sort((a, b) => a.index - b.index);
  return {
    id: context.id,
    object: 'chat.completion',
    created: context.created,
    model: response.modelVersion ?? context.model,
    choices,
    ...(response.usageMetadata ? { usage: mapUsage(response.usageMetadata) } : {}),
  };
}

function mapCandidate(candidate: GeminiCandidate, position: number, context: AnswerContext): ChatCompletion['choices'][number] {
  const parts = candidate.content?.parts ?? [];
  const text = parts.map(visibleText).join('');
  const calls = parts
    .flatMap((part) => (part.functionCall ? [part.functionCall] : []))
    .slice(0, context.maxToolCalls)
    .map((call) => mapFunctionCall(call, context.nextToolCallId));
  return {
    index: candidate.index ?? position,
    message: {
      role: 'assistant',
      // OpenAI sends null content beside tool calls when the model said nothing.
      content: text === '' && calls.length > 0 ? null : text,
      refusal: null,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    },
    logprobs: null,
    finish_reason: mapFinishReason(candidate.finishReason, calls.length > 0),
  };
}

/** Answer text of one part: thought summaries (`thought: true`) are the model's reasoning, not its answer. */
export function visibleText(part: { text?: string; thought?: boolean }): string {
  return typeof part.text === 'string' && !part.thought ? part.text : '';
}

export function mapFunctionCall(call: GeminiFunctionCall, nextId: ToolCallIdSource): OpenAiToolCall {
  return { id: toolCallIdFor(call, nextId), type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) } };
}
