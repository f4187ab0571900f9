import { ProviderError } from '../../errors/provider-error.ts';
import type { AnthropicUsage, StreamEventData } from './anthropic-wire-types.ts';
import { mapStreamError } from './map-error.ts';
import { mapFinishReason } from './map-finish-reason.ts';
import { mapUsage } from './map-usage.ts';
import type { ChatChunkChoice, ChatCompletionChunk, ChatUsage } from '../../protocols/openai/chat-types.ts';

/** Everything one Anthropic stream carries from event to event. Never mutated: each event returns a new state. */
export interface StreamState {
  readonly provider: string;
  readonly includeUsage: boolean;
  readonly jsonToolName: string | null;
  readonly created: number;
  readonly id: string;
  readonly model: string;
  readonly phase: 'before-start' | 'open' | 'stopped';
  /** Anthropic content-block index -> OpenAI tool-call index, or 'json' for the JSON-response tool. */
  readonly blocks: Readonly<Record<number, number | 'json'>>;
  readonly toolCalls: number;
  readonly finished: boolean;
  /** Anthropic's counts so far: message_start's input and cache counts, then message_delta's cumulative ones. */
  readonly usage: AnthropicUsage | null;
  /**
   * JSON mode only: text not sent yet. Claude may write a sentence before the json_response tool;
   * it is dropped when that tool comes, and sent when the answer turns out not to be JSON.
   */
  readonly heldText: string;
}

export interface StreamEvent {
  /** The SSE `event:` name; Anthropic repeats it as `type` in the data. */
  event?: string;
  data: string;
}

export interface StreamStep {
  chunks: ChatCompletionChunk[];
  state: StreamState;
}

export function createStreamState(options: { provider: string; includeUsage: boolean; created: number; jsonToolName: string | null }): StreamState {
  return { ...options, id: '', model: '', phase: 'before-start', blocks: {}, toolCalls: 0, finished: false, usage: null, heldText: '' };
}

/**
 * One Anthropic SSE event -> the OpenAI chunks it stands for (reference §7.6). Tool calls are
 * numbered by their ordinal among tool calls, not by Anthropic's content-block index, which
 * counts text blocks too. Thinking, signature and citation deltas, pings and unknown event types
 * produce nothing. `event: error` throws a retryable stream ProviderError.
 */
export function mapStreamEvent(event: StreamEvent, state: StreamState): StreamStep {
  const data = parseEvent(event, state.provider);
  if (event.event === 'error' || data.type === 'error') throw mapStreamError(state.provider, data.error);
  if (state.phase === 'stopped' || data.type === 'ping') return { chunks: [], state };
  if (state.phase === 'before-start' && data.type !== 'message_start') {
    if (!isMessageEvent(data.type)) return { chunks: [], state };
    throw streamBroken(state.provider, `sent ${data.type} before message_start`);
  }
  switch (data.type) {
    case 'message_start': {
      const next: StreamState = { ...state, phase: 'open', id: data.message?.id ?? '', model: data.message?.model ?? '', usage: { ...data.message?.usage } };
      return { chunks: [chunk(next, { role: 'assistant', content: '' })], state: next };
    }
    case 'content_block_start':
      return startBlock(data, state);
    case 'content_block_delta':
      return blockDelta(data, state);
    case 'message_delta': {
      const held = releaseHeld(state);
      const next: StreamState = { ...held.state, usage: mergeUsage(state.usage, data.usage) };
      const stopReason = data.delta?.stop_reason;
      if (!stopReason || state.finished) return { chunks: held.chunks, state: next };
      return { chunks: [...held.chunks, finishChunk(next, stopReason)], state: { ...next, finished: true } };
    }
    case 'message_stop': {
      const held = releaseHeld(state);
      const chunks = state.finished ? held.chunks : [...held.chunks, finishChunk(held.state, 'end_turn')];
      const next: StreamState = { ...held.state, phase: 'stopped', finished: true };
      if (state.includeUsage) chunks.push({ ...base(next), choices: [], usage: streamUsage(next) });
      return { chunks, state: next };
    }
    default:
      return { chunks: [], state };
  }
}

/** The upstream body ended: fine after message_stop; before it, the answer is cut short. */
export function endStream(state: StreamState): void {
  if (state.phase !== 'stopped') throw streamBroken(state.provider, 'the stream ended before message_stop');
}

/** Usage so far in OpenAI's terms; null before message_start. */
export function streamUsage(state: StreamState): ChatUsage | null {
  return state.usage ? mapUsage(state.usage) : null;
}

function startBlock(data: StreamEventData, state: StreamState): StreamStep {
  const block = data.content_block;
  const index = data.index ?? -1;
  if (block?.type === 'text' && block.text) return text(state, block.text);
  if (block?.type !== 'tool_use') return { chunks: [], state };
  if (block.name === state.jsonToolName) return { chunks: [], state: { ...state, heldText: '', blocks: { ...state.blocks, [index]: 'json' } } };
  const held = releaseHeld(state);
  const ordinal = held.state.toolCalls;
  const next: StreamState = { ...held.state, blocks: { ...held.state.blocks, [index]: ordinal }, toolCalls: ordinal + 1 };
  const call = { index: ordinal, id: block.id ?? '', type: 'function' as const, function: { name: block.name ?? '', arguments: '' } };
  return { chunks: [...held.chunks, chunk(next, { tool_calls: [call] })], state: next };
}

/** Text for the client: held back in JSON mode until the answer shows whether it is JSON. */
function text(state: StreamState, content: string): StreamStep {
  if (state.jsonToolName === null) return { chunks: [chunk(state, { content })], state };
  // After the JSON tool, text is commentary on it, not part of the JSON the client asked for.
  if (Object.values(state.blocks).includes('json')) return { chunks: [], state };
  return { chunks: [], state: { ...state, heldText: state.heldText + content } };
}

/** The held text, sent: the answer is not (only) the JSON tool's. */
function releaseHeld(state: StreamState): StreamStep {
  if (state.heldText === '') return { chunks: [], state };
  return { chunks: [chunk(state, { content: state.heldText })], state: { ...state, heldText: '' } };
}

function blockDelta(data: StreamEventData, state: StreamState): StreamStep {
  const delta = data.delta;
  if (delta?.type === 'text_delta' && delta.text) return text(state, delta.text);
  if (delta?.type !== 'input_json_delta' || !delta.partial_json) return { chunks: [], state };
  const target = state.blocks[data.index ?? -1];
  if (target === undefined) return { chunks: [], state };
  if (target === 'json') return { chunks: [chunk(state, { content: delta.partial_json })], state };
  return { chunks: [chunk(state, { tool_calls: [{ index: target, function: { arguments: delta.partial_json } }] })], state };
}

function finishChunk(state: StreamState, stopReason: string): ChatCompletionChunk {
  return chunk(state, {}, mapFinishReason(stopReason, state.toolCalls > 0));
}

function chunk(state: StreamState, delta: ChatChunkChoice['delta'], finishReason: ChatChunkChoice['finish_reason'] = null): ChatCompletionChunk {
  return { ...base(state), choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], ...(state.includeUsage ? { usage: null } : {}) };
}

function base(state: StreamState): Pick<ChatCompletionChunk, 'id' | 'object' | 'created' | 'model'> {
  return { id: state.id, object: 'chat.completion.chunk', created: state.created, model: state.model };
}

/** message_delta counts are cumulative and may repeat input counts (or leave them null): later non-null values win. */
function mergeUsage(current: AnthropicUsage | null, update: AnthropicUsage | undefined): AnthropicUsage | null {
  if (!update) return current;
  const merged: AnthropicUsage = { ...current };
  for (const [key, value] of Object.entries(update) as [keyof AnthropicUsage, AnthropicUsage[keyof AnthropicUsage]][]) {
    if (value != null) (merged as Record<string, unknown>)[key] = value;
  }
  return merged;
}

function isMessageEvent(type: string): boolean {
  return ['content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'].includes(type);
}

function parseEvent(event: StreamEvent, provider: string): StreamEventData {
  try {
    const data = JSON.parse(event.data) as StreamEventData;
    if (typeof data === 'object' && data !== null && typeof data.type === 'string') return data;
  } catch {
    // Reported below, as any other event without a type.
  }
  throw streamBroken(provider, `sent a stream event that is not an Anthropic event: ${event.data.slice(0, 200)}`);
}

function streamBroken(provider: string, message: string): ProviderError {
  return new ProviderError({ provider, upstreamStatus: 502, message, retryable: true, kind: 'stream' });
}
