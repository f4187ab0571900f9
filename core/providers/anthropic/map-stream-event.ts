import { ProviderError } from '../../errors/provider-error.ts';
import { decodeAnthropicUsage, mergeAnthropicUsage } from '../../protocols/anthropic-messages/map-usage.ts';
import type { StreamPart } from '../../protocols/neutral/stream-part.ts';
import type { AnthropicUsage, MessageResponse, StreamEventData } from './anthropic-wire-types.ts';
import { mapStreamError } from './map-error.ts';
import { mapFinishReason } from './map-finish-reason.ts';

/** Everything one Anthropic stream carries from event to event. Never mutated: each event returns a new state. */
export interface StreamState {
  readonly provider: string;
  /** JSON mode's answer tool, whose input is the answer's text rather than a tool call. */
  readonly jsonToolName: string | null;
  readonly phase: 'before-start' | 'open' | 'stopped';
  /** Anthropic content-block index -> what its deltas are: a tool call's arguments, or JSON mode's answer. */
  readonly blocks: Readonly<Record<number, 'tool' | 'json'>>;
  /** message_delta's stop reason and sequence, passed on with the final counts at message_stop. */
  readonly stop: { reason: string; sequence: string | null } | null;
  /** Anthropic's counts so far: message_start's input and cache counts, then message_delta's cumulative ones. */
  readonly usage: AnthropicUsage | null;
  /**
   * JSON mode only: text not passed on yet. Claude may write a sentence before the json_response
   * tool; it is dropped when that tool comes, and passed on when the answer turns out not to be JSON.
   */
  readonly heldText: string;
  /** JSON mode only: the answer tool has begun (text after it is commentary, dropped). */
  readonly jsonStarted: boolean;
}

export interface StreamEvent {
  /** The SSE `event:` name; Anthropic repeats it as `type` in the data. */
  event?: string;
  data: string;
}

export interface StreamStep {
  parts: StreamPart[];
  state: StreamState;
}

export function createStreamState(options: { provider: string; jsonToolName: string | null }): StreamState {
  return { ...options, phase: 'before-start', blocks: {}, stop: null, usage: null, heldText: '', jsonStarted: false };
}

/**
 * One Anthropic SSE event -> neutral parts (reference §7.6): text, tool calls (start, then their
 * argument JSON), thinking with its signature, redacted thinking, and the finish with the usage.
 * Pings, citations and unknown event types produce nothing. `event: error` throws a retryable
 * stream ProviderError. In JSON mode the answer tool's input is the answer's text.
 */
export function mapStreamEvent(event: StreamEvent, state: StreamState): StreamStep {
  const data = parseEvent(event, state.provider);
  if (event.event === 'error' || data.type === 'error') throw mapStreamError(state.provider, data.error);
  if (state.phase === 'stopped' || data.type === 'ping') return { parts: [], state };
  if (state.phase === 'before-start' && data.type !== 'message_start') {
    if (!isMessageEvent(data.type)) return { parts: [], state };
    throw streamBroken(state.provider, `sent ${data.type} before message_start`);
  }
  switch (data.type) {
    case 'message_start': {
      const usage = mergeAnthropicUsage(null, data.message?.usage);
      const start: StreamPart = { type: 'start', ...(data.message?.id ? { id: data.message.id } : {}), ...(data.message?.model ? { model: data.message.model } : {}), ...(usage ? { usage: decodeAnthropicUsage(usage) } : {}) };
      return { parts: [start], state: { ...state, phase: 'open', usage } };
    }
    case 'content_block_start':
      return startBlock(data, state);
    case 'content_block_delta':
      return blockDelta(data, state);
    case 'message_delta': {
      // Counts are cumulative and may come again after the stop reason: the finish waits for message_stop.
      const stop = state.stop ?? (data.delta?.stop_reason ? { reason: data.delta.stop_reason, sequence: data.delta.stop_sequence ?? null } : null);
      return { parts: [], state: { ...state, stop, usage: mergeAnthropicUsage(state.usage, data.usage) } };
    }
    case 'message_stop': {
      const step = finish(state, state.stop?.reason ?? 'end_turn', state.stop?.sequence ?? null);
      return { parts: step.parts, state: { ...step.state, phase: 'stopped' } };
    }
    default:
      return { parts: [], state };
  }
}

/** The upstream body ended: fine after message_stop; before it, the answer is cut short. */
export function endStream(state: StreamState): void {
  if (state.phase !== 'stopped') throw streamBroken(state.provider, 'the stream ended before message_stop');
}

/**
 * A whole Message (non-streamed) -> the parts its stream would have had. In JSON mode the answer
 * tool's input is the text, and text Claude wrote beside it is dropped.
 */
export function mapMessage(message: MessageResponse, jsonToolName: string | null): StreamPart[] {
  const usage = message.usage ? decodeAnthropicUsage(message.usage) : null;
  const parts: StreamPart[] = [{ type: 'start', id: message.id, model: message.model }];
  const json = jsonToolName !== null && message.content.some((b) => b.type === 'tool_use' && b.name === jsonToolName);
  for (const block of message.content) {
    if (block.type === 'text' && !json && block.text) parts.push({ type: 'text-delta', text: block.text });
    else if (block.type === 'tool_use' && block.name === jsonToolName) parts.push({ type: 'text-delta', text: JSON.stringify(block.input ?? {}) });
    else if (block.type === 'tool_use') {
      parts.push({ type: 'tool-call-start', id: block.id ?? '', name: block.name ?? '' }, { type: 'tool-call-delta', argumentsDelta: JSON.stringify(block.input ?? {}) });
    } else if (block.type === 'thinking') {
      if (block.thinking) parts.push({ type: 'reasoning-delta', text: block.thinking });
      if (block.signature) parts.push({ type: 'reasoning-signature', signature: block.signature });
    } else if (block.type === 'redacted_thinking' && block.data) parts.push({ type: 'redacted-reasoning', data: block.data });
  }
  parts.push({ type: 'finish', reason: mapFinishReason(message.stop_reason), stopSequence: message.stop_sequence ?? null, usage });
  return parts;
}

function finish(state: StreamState, stopReason: string, stopSequence: string | null): StreamStep {
  const held = releaseHeld(state);
  const usage = held.state.usage ? decodeAnthropicUsage(held.state.usage) : null;
  return { parts: [...held.parts, { type: 'finish', reason: mapFinishReason(stopReason), stopSequence, usage }], state: held.state };
}

function startBlock(data: StreamEventData, state: StreamState): StreamStep {
  const block = data.content_block;
  const index = data.index ?? -1;
  switch (block?.type) {
    case 'text':
      return block.text ? text(state, block.text) : { parts: [], state };
    case 'tool_use': {
      if (block.name === state.jsonToolName) return { parts: [], state: { ...state, heldText: '', jsonStarted: true, blocks: { ...state.blocks, [index]: 'json' } } };
      const held = releaseHeld(state);
      return { parts: [...held.parts, { type: 'tool-call-start', id: block.id ?? '', name: block.name ?? '' }], state: { ...held.state, blocks: { ...held.state.blocks, [index]: 'tool' } } };
    }
    case 'thinking':
      return block.thinking ? { parts: [{ type: 'reasoning-delta', text: block.thinking }], state } : { parts: [], state };
    case 'redacted_thinking':
      return block.data ? { parts: [{ type: 'redacted-reasoning', data: block.data }], state } : { parts: [], state };
    default:
      return { parts: [], state };
  }
}

/** Text for the client: held back in JSON mode until the answer shows whether it is JSON. */
function text(state: StreamState, content: string): StreamStep {
  if (state.jsonToolName === null) return { parts: [{ type: 'text-delta', text: content }], state };
  // After the JSON tool, text is commentary on it, not part of the JSON the client asked for.
  if (state.jsonStarted) return { parts: [], state };
  return { parts: [], state: { ...state, heldText: state.heldText + content } };
}

/** The held text, passed on: the answer is not (only) the JSON tool's. */
function releaseHeld(state: StreamState): StreamStep {
  if (state.heldText === '') return { parts: [], state };
  return { parts: [{ type: 'text-delta', text: state.heldText }], state: { ...state, heldText: '' } };
}

function blockDelta(data: StreamEventData, state: StreamState): StreamStep {
  const delta = data.delta;
  switch (delta?.type) {
    case 'text_delta':
      return delta.text ? text(state, delta.text) : { parts: [], state };
    case 'thinking_delta':
      return delta.thinking ? { parts: [{ type: 'reasoning-delta', text: delta.thinking }], state } : { parts: [], state };
    case 'signature_delta':
      return delta.signature ? { parts: [{ type: 'reasoning-signature', signature: delta.signature }], state } : { parts: [], state };
    case 'input_json_delta': {
      const target = state.blocks[data.index ?? -1];
      if (!delta.partial_json || target === undefined) return { parts: [], state };
      return { parts: [target === 'json' ? { type: 'text-delta', text: delta.partial_json } : { type: 'tool-call-delta', argumentsDelta: delta.partial_json }], state };
    }
    default:
      return { parts: [], state };
  }
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
