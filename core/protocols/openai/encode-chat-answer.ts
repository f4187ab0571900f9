import type { NeutralUsage } from '../neutral/neutral-usage.ts';
import type { FinishReason as NeutralFinish, StreamPart } from '../neutral/stream-part.ts';
import type { ChatChunkChoice, ChatCompletion, ChatCompletionChunk, ChatToolCall, FinishReason } from './chat-types.ts';
import { encodeOpenAiUsage } from './map-usage.ts';

/** What every chunk of one answer repeats. */
export interface AnswerIdentity {
  /** `chatcmpl-…` made by the caller; an upstream id given in the start part (Anthropic's msg_…) replaces it. */
  id: string;
  created: number;
  /** The endpoint's model id; the upstream's own name for it (start part) replaces it. */
  model: string;
}

interface ChoiceState {
  /** Tool calls begun so far: the next call's OpenAI index. */
  toolCalls: number;
  finished: boolean;
}

/** One OpenAI chat stream being written from neutral parts. Never mutated: each part returns a new state. */
export interface AnswerState extends AnswerIdentity {
  readonly includeUsage: boolean;
  /** Per choice; a choice exists once its role chunk was written. */
  readonly choices: Readonly<Record<number, ChoiceState>>;
  /** The last usage an upstream gave (a finish part's). */
  readonly usage: NeutralUsage | null;
}

export function createAnswerState(identity: AnswerIdentity, includeUsage: boolean): AnswerState {
  return { ...identity, includeUsage, choices: {}, usage: null };
}

/**
 * One neutral part -> the OpenAI chunks it stands for. A choice's first chunk is its role chunk
 * (`{role: "assistant", content: ""}`), written just before its first content or finish; reasoning
 * has no place in OpenAI chat and is left out. Tool calls are numbered per choice from 0: their
 * start carries id and name, each argument fragment follows as its own delta, as OpenAI streams them.
 */
export function encodeChatChunk(part: StreamPart, state: AnswerState): { chunks: ChatCompletionChunk[]; state: AnswerState } {
  if (part.type === 'start') return { chunks: [], state: { ...state, id: part.id ?? state.id, model: part.model ?? state.model } };
  if (part.type === 'reasoning-delta' || part.type === 'reasoning-signature' || part.type === 'redacted-reasoning') return { chunks: [], state };
  if (part.type === 'text-delta' && part.text === '') return { chunks: [], state };
  const index = part.choice ?? 0;
  const chunks: ChatCompletionChunk[] = [];
  let choice = state.choices[index];
  if (!choice) {
    chunks.push(chunk(state, index, { role: 'assistant', content: '' }));
    choice = { toolCalls: 0, finished: false };
  }
  if (choice.finished) return { chunks, state };
  switch (part.type) {
    case 'text-delta':
      chunks.push(chunk(state, index, { content: part.text }));
      break;
    case 'tool-call-start':
      chunks.push(chunk(state, index, { tool_calls: [{ index: choice.toolCalls, id: part.id, type: 'function', function: { name: part.name, arguments: '' } }] }));
      choice = { ...choice, toolCalls: choice.toolCalls + 1 };
      break;
    case 'tool-call-delta':
      if (choice.toolCalls > 0 && part.argumentsDelta !== '') chunks.push(chunk(state, index, { tool_calls: [{ index: choice.toolCalls - 1, function: { arguments: part.argumentsDelta } }] }));
      break;
    case 'finish':
      chunks.push(chunk(state, index, {}, encodeFinishReason(part.reason, choice.toolCalls > 0)));
      choice = { ...choice, finished: true };
      break;
  }
  const usage = part.type === 'finish' && part.usage ? part.usage : state.usage;
  return { chunks, state: { ...state, usage, choices: { ...state.choices, [index]: choice } } };
}

/** The stream's end: OpenAI's last `choices: []` chunk with the usage, when the client asked for it. */
export function endChatChunks(state: AnswerState): ChatCompletionChunk[] {
  if (!state.includeUsage || !state.usage) return [];
  return [{ id: state.id, object: 'chat.completion.chunk', created: state.created, model: state.model, choices: [], usage: encodeOpenAiUsage(state.usage) }];
}

/** Whether every choice that began has finished (a stream cut short has not). */
export function isAnswerComplete(state: AnswerState): boolean {
  const begun = Object.values(state.choices);
  return begun.length > 0 && begun.every((choice) => choice.finished);
}

/**
 * A whole answer's parts -> one chat.completion: per choice, the text joined (null beside tool
 * calls when the model wrote none, as OpenAI sends it) and the tool calls with their argument
 * fragments joined; choices in index order. Usage is left out only when the upstream gave none.
 */
export function encodeChatCompletion(parts: StreamPart[], identity: AnswerIdentity): ChatCompletion {
  let { id, model } = identity;
  let usage: NeutralUsage | null = null;
  const choices = new Map<number, { text: string; calls: ChatToolCall[]; finish: NeutralFinish | null }>();
  const choiceOf = (index: number) => {
    let choice = choices.get(index);
    if (!choice) choices.set(index, (choice = { text: '', calls: [], finish: null }));
    return choice;
  };
  for (const part of parts) {
    const choice = () => choiceOf(part.choice ?? 0);
    switch (part.type) {
      case 'start':
        id = part.id ?? id;
        model = part.model ?? model;
        break;
      case 'text-delta':
        choice().text += part.text;
        break;
      case 'tool-call-start':
        choice().calls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: '' } });
        break;
      case 'tool-call-delta': {
        const last = choice().calls.at(-1);
        if (last) last.function.arguments += part.argumentsDelta;
        break;
      }
      case 'finish':
        choice().finish ??= part.reason;
        if (part.usage) usage = part.usage;
        break;
      default:
        break;
    }
  }
  if (choices.size === 0) choiceOf(0);
  const completion = {
    id,
    object: 'chat.completion' as const,
    created: identity.created,
    model,
    choices: [...choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, choice]) => ({
        index,
        message: {
          role: 'assistant' as const,
          content: choice.text === '' && choice.calls.length > 0 ? null : choice.text,
          refusal: null,
          ...(choice.calls.length > 0 ? { tool_calls: choice.calls.map((call) => ({ ...call, function: { ...call.function, arguments: call.function.arguments || '{}' } })) } : {}),
        },
        logprobs: null,
        finish_reason: encodeFinishReason(choice.finish ?? 'stop', choice.calls.length > 0),
      })),
  };
  return (usage ? { ...completion, usage: encodeOpenAiUsage(usage) } : completion) as ChatCompletion;
}

/** A `tool-calls` finish is `stop` when no call reached the client (e.g. JSON mode's answer tool). */
function encodeFinishReason(reason: NeutralFinish, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'tool-calls':
      return hasToolCalls ? 'tool_calls' : 'stop';
    case 'content-filter':
      return 'content_filter';
    default:
      return 'stop';
  }
}

function chunk(state: AnswerState, index: number, delta: ChatChunkChoice['delta'], finishReason: FinishReason | null = null): ChatCompletionChunk {
  return {
    id: state.id,
    object: 'chat.completion.chunk',
    created: state.created,
    model: state.model,
    choices: [{ index, delta, logprobs: null, finish_reason: finishReason }],
    ...(state.includeUsage ? { usage: null } : {}),
  };
}
