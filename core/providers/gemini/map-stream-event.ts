import type { NeutralUsage } from '../../protocols/neutral/neutral-usage.ts';
import type { StreamPart } from '../../protocols/neutral/stream-part.ts';
import type { GeminiCandidate, GeminiPart, GeminiResponse } from './gemini-wire.ts';
import { mapFinishReason } from './map-finish-reason.ts';
import { mapUsage } from './map-usage.ts';
import { toolCallIdFor, type ToolCallIdSource } from './tool-call-id.ts';

interface ChoiceState {
  /** Function calls passed on so far. */
  toolCalls: number;
  finished: boolean;
}

/** What reading one Gemini answer carries from event to event. Never mutated: each event returns a new state. */
export interface StreamState {
  readonly nextToolCallId: ToolCallIdSource;
  /** 1 when the caller wants one tool call at most (Gemini has no such switch); else unlimited. */
  readonly maxToolCalls: number;
  readonly started: boolean;
  /** Per candidate index; a choice exists once a candidate with that index appeared. */
  readonly choices: Readonly<Record<number, ChoiceState>>;
  /** Gemini repeats cumulative usage on every event: the last one is the total. */
  readonly usage: NeutralUsage | null;
}

export function createStreamState(options: { nextToolCallId: ToolCallIdSource; maxToolCalls: number }): StreamState {
  return { ...options, started: false, choices: {}, usage: null };
}

/**
 * One streamGenerateContent event (or a whole generateContent answer) -> neutral parts. Gemini
 * sends only new text in each event and every function call whole: a call becomes its start and
 * one argument delta. Thought summaries (`thought: true`) are reasoning; a thoughtSignature is
 * passed on as a reasoning-signature just before what it signed (a thought, an answer part or a
 * function call), so a client that keeps signed reasoning can send it back and Gemini gets its
 * signature where it put it. Candidate i's parts carry `choice: i`. A prompt blocked before any
 * output arrives as an event without candidates but with promptFeedback.blockReason.
 */
export function mapStreamEvent(event: GeminiResponse, state: StreamState): { parts: StreamPart[]; state: StreamState } {
  const parts: StreamPart[] = [];
  if (!state.started) parts.push({ type: 'start', ...(event.modelVersion ? { model: event.modelVersion } : {}) });
  const usage = event.usageMetadata ? mapUsage(event.usageMetadata) : state.usage;
  const choices = { ...state.choices };
  const candidates: GeminiCandidate[] = event.candidates ?? [];
  candidates.forEach((candidate, position) => {
    const index = candidate.index ?? position;
    const choice = (choices[index] = { ...(choices[index] ?? { toolCalls: 0, finished: false }) });
    if (choice.finished) return;
    const tag = index === 0 ? {} : { choice: index };
    for (const part of candidate.content?.parts ?? []) {
      if (part.functionCall && choice.toolCalls >= state.maxToolCalls) continue;
      const signature: StreamPart | null = typeof part.thoughtSignature === 'string' && part.thoughtSignature !== '' ? { type: 'reasoning-signature', signature: part.thoughtSignature, ...tag } : null;
      // A thought's signature closes it; any other part's signature comes just before that part.
      if (signature && !part.thought) parts.push(signature);
      parts.push(...partsOf(part, state.nextToolCallId, tag));
      if (signature && part.thought) parts.push(signature);
      if (part.functionCall) choice.toolCalls += 1;
    }
    if (candidate.finishReason) {
      parts.push({ type: 'finish', reason: mapFinishReason(candidate.finishReason, choice.toolCalls > 0), usage, ...tag });
      choice.finished = true;
    }
  });
  if (candidates.length === 0 && event.promptFeedback?.blockReason && !choices[0]?.finished) {
    parts.push({ type: 'finish', reason: 'content-filter', usage });
    choices[0] = { toolCalls: 0, finished: true };
  }
  return { parts, state: { ...state, started: true, choices, usage } };
}

function partsOf(part: GeminiPart, nextId: ToolCallIdSource, tag: { choice?: number }): StreamPart[] {
  if (part.functionCall) {
    return [
      { type: 'tool-call-start', id: toolCallIdFor(part.functionCall, nextId), name: part.functionCall.name, ...tag },
      { type: 'tool-call-delta', argumentsDelta: JSON.stringify(part.functionCall.args ?? {}), ...tag },
    ];
  }
  if (typeof part.text !== 'string' || part.text === '') return [];
  return [{ type: part.thought ? 'reasoning-delta' : 'text-delta', text: part.text, ...tag }];
}

/** Gemini's stream has no terminator: it is complete only if every choice it started has finished; otherwise the connection was cut mid-answer. */
export function isStreamComplete(state: StreamState): boolean {
  const started = Object.values(state.choices);
  return started.length > 0 && started.every((choice) => choice.finished);
}

/**
 * A non-streamed answer ends whatever its candidates say: a candidate without a finishReason has
 * stopped, and an answer without candidates (nor a block reason) is one empty answer.
 */
export function finishAnswer(state: StreamState): StreamPart[] {
  const indexes = Object.keys(state.choices).map(Number);
  if (indexes.length === 0) return [{ type: 'finish', reason: 'stop', usage: state.usage }];
  return indexes
    .filter((index) => !state.choices[index].finished)
    .map((index) => ({ type: 'finish', reason: mapFinishReason(undefined, state.choices[index].toolCalls > 0), usage: state.usage, ...(index === 0 ? {} : { choice: index }) }) as StreamPart);
}
