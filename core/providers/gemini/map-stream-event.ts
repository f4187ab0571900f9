import type { ChatCompletionChunk } from '../../protocols/openai/chat-types.ts';
import type { GeminiCandidate, GeminiResponse } from './gemini-wire.ts';
import { mapFinishReason, type OpenAiFinishReason } from './map-finish-reason.ts';
import { mapFunctionCall, visibleText, type AnswerContext } from './map-response.ts';
import { mapUsage, type OpenAiUsage } from './map-usage.ts';

export type { ChatCompletionChunk };

interface ChoiceState {
  /** Tool calls sent so far: the next call's OpenAI `index`. */
  toolCalls: number;
  finished: boolean;
}

export interface StreamState {
  readonly context: AnswerContext;
  readonly includeUsage: boolean;
  /** Fixed by the first event, so every chunk names the same model. */
  readonly model: string | null;
  /** Per choice (= Gemini candidate index); a choice exists once its role chunk was sent. */
  readonly choices: Readonly<Record<number, ChoiceState>>;
  /** Gemini repeats cumulative usage on every event: the last one is the total. */
  readonly usage: OpenAiUsage | null;
}

export function createStreamState(context: AnswerContext, includeUsage: boolean): StreamState {
  return { context, includeUsage, model: null, choices: {}, usage: null };
}

/**
 * One streamGenerateContent event to OpenAI chunks. Gemini sends only new text in each event and
 * every function call whole, so each call becomes one complete tool-call delta. A prompt blocked
 * before any output arrives as an event without candidates but with promptFeedback.blockReason.
 */
export function mapStreamEvent(event: GeminiResponse, state: StreamState): { chunks: ChatCompletionChunk[]; state: StreamState } {
  const model = state.model ?? event.modelVersion ?? state.context.model;
  const choices = { ...state.choices };
  const chunks: ChatCompletionChunk[] = [];
  const emit = (index: number, delta: ChatCompletionChunk['choices'][number]['delta'], finish: OpenAiFinishReason | null = null): void => {
    chunks.push({
      id: state.context.id,
      object: 'chat.completion.chunk',
      created: state.context.created,
      model,
      choices: [{ index, delta, logprobs: null, finish_reason: finish }],
      ...(state.includeUsage ? { usage: null } : {}),
    });
  };
  const start = (index: number): ChoiceState => {
    if (!choices[index]) emit(index, { role: 'assistant', content: '' });
    return (choices[index] = { ...(choices[index] ?? { toolCalls: 0, finished: false }) });
  };

  const candidates: GeminiCandidate[] = event.candidates ?? [];
  candidates.forEach((candidate, position) => {
    const index = candidate.index ?? position;
    const choice = start(index);
    let text = '';
    for (const part of candidate.content?.parts ?? []) {
      text += visibleText(part);
      if (!part.functionCall) continue;
      if (text) emit(index, { content: text });
      text = '';
      if (choice.toolCalls >= state.context.maxToolCalls) continue;
      emit(index, { tool_calls: [{ index: choice.toolCalls, ...mapFunctionCall(part.functionCall, state.context.nextToolCallId) }] });
      choice.toolCalls += 1;
    }
    if (text) emit(index, { content: text });
    if (candidate.finishReason && !choice.finished) {
      emit(index, {}, mapFinishReason(candidate.finishReason, choice.toolCalls > 0));
      choice.finished = true;
    }
  });
  if (candidates.length === 0 && event.promptFeedback?.blockReason && !choices[0]?.finished) {
    const choice = start(0);
    emit(0, {}, 'content_filter');
    choice.finished = true;
  }

  const usage = event.usageMetadata ? mapUsage(event.usageMetadata) : state.usage;
  return { chunks, state: { ...state, model, choices, usage } };
}

/**
 * The end of the upstream body. Gemini's stream has no terminator, so it is complete only if every
 * choice it started has finished; otherwise the connection was cut mid-answer. When the caller
 * asked for usage, the last chunk carries it, as OpenAI's does.
 */
export function finishStream(state: StreamState): { chunks: ChatCompletionChunk[]; complete: boolean } {
  const started = Object.values(state.choices);
  const complete = started.length > 0 && started.every((choice) => choice.finished);
  if (!complete || !state.includeUsage || !state.usage) return { chunks: [], complete };
  const usageChunk: ChatCompletionChunk = {
    id: state.context.id,
    object: 'chat.completion.chunk',
    created: state.context.created,
    model: state.model ?? state.context.model,
    choices: [],
    usage: state.usage,
  };
  return { chunks: [usageChunk], complete };
}
