import type { NeutralUsage } from '../neutral/neutral-usage.ts';
import { sealSignature } from '../neutral/signature-envelope.ts';
import type { StreamPart } from '../neutral/stream-part.ts';
import { encodeStopReason } from './map-stop-reason.ts';
import { encodeAnthropicUsage } from './map-usage.ts';

type BlockKind = 'text' | 'thinking' | 'tool_use';

/** One Messages stream being written. Never mutated: each part returns a new state. */
export interface EncodeState {
  readonly id: string;
  readonly model: string;
  /** The provider answering: its signatures are sealed in Patchbay's envelope (no Anthropic upstream is answering through here). */
  readonly signer: string;
  /** Input tokens for message_start when the upstream does not say before output: Patchbay's estimate. */
  readonly estimatedInputTokens: number;
  readonly startUsage: NeutralUsage | null;
  readonly started: boolean;
  /** Index of the open block (-1 before the first); `open` null when none is open. */
  readonly index: number;
  readonly open: BlockKind | null;
  readonly finished: boolean;
}

export interface EncodeStep {
  /** Complete SSE events (`event: x\ndata: {...}\n\n`), in order; may be empty. */
  events: string;
  state: EncodeState;
}

export function createEncodeState(options: { id: string; model: string; signer: string; estimatedInputTokens: number }): EncodeState {
  return { ...options, startUsage: null, started: false, index: -1, open: null, finished: false };
}

/**
 * One neutral part -> the Anthropic events it stands for. message_start is held back until the
 * first content (or the finish), so an attempt that fails before any content sends nothing and
 * routing can still fall back. Blocks open one at a time with indexes in order; a part of another
 * kind closes the open block first. Signatures are sealed with the answering provider's name
 * (signature-envelope.ts), so a replay reaches that provider only. Its input count is the upstream's when the upstream gave
 * one at the start, else Patchbay's estimate; message_delta then carries the real counts.
 */
export function encodeStreamPart(part: StreamPart, state: EncodeState): EncodeStep {
  if (state.finished) return { events: '', state };
  switch (part.type) {
    case 'start':
      return { events: '', state: { ...state, id: part.id && /^msg_[A-Za-z0-9_-]+$/.test(part.id) ? part.id : state.id, model: part.model ?? state.model, startUsage: part.usage ?? null } };
    case 'text-delta':
      if (part.text === '') return { events: '', state };
      return delta(state, 'text', { type: 'text_delta', text: part.text });
    case 'reasoning-delta':
      return delta(state, 'thinking', { type: 'thinking_delta', thinking: part.text });
    case 'reasoning-signature': {
      const step = delta(state, 'thinking', { type: 'signature_delta', signature: sealSignature(state.signer, part.signature) });
      return close(step.events, step.state);
    }
    case 'redacted-reasoning': {
      const opened = open(state, { type: 'redacted_thinking', data: sealSignature(state.signer, part.data, true) }, 'thinking');
      return close(opened.events, opened.state);
    }
    case 'tool-call-start':
      return open(state, { type: 'tool_use', id: part.id, name: part.name, input: {} }, 'tool_use');
    case 'tool-call-delta':
      if (state.open !== 'tool_use' || part.argumentsDelta === '') return { events: '', state };
      return { events: event('content_block_delta', { index: state.index, delta: { type: 'input_json_delta', partial_json: part.argumentsDelta } }), state };
    case 'finish': {
      const begun = begin(state);
      const closed = close(begun.events, begun.state);
      const usage = part.usage ?? closed.state.startUsage;
      const messageDelta = event('message_delta', {
        delta: { stop_reason: encodeStopReason(part.reason), stop_sequence: part.stopSequence ?? null },
        usage: usage ? encodeAnthropicUsage(usage) : { output_tokens: 0 },
      });
      return { events: closed.events + messageDelta + event('message_stop', {}), state: { ...closed.state, finished: true } };
    }
  }
}

/** The events of a stream that ends without a finish part: none can be invented, so the caller reports an error. */
export function isStreamFinished(state: EncodeState): boolean {
  return state.finished;
}

function delta(state: EncodeState, kind: BlockKind, payload: Record<string, unknown>): EncodeStep {
  const opened = state.open === kind ? { events: '', state } : open(state, kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' }, kind);
  return { events: opened.events + event('content_block_delta', { index: opened.state.index, delta: payload }), state: opened.state };
}

function open(state: EncodeState, block: Record<string, unknown>, kind: BlockKind): EncodeStep {
  const begun = begin(state);
  const closed = close(begun.events, begun.state);
  const index = closed.state.index + 1;
  return { events: closed.events + event('content_block_start', { index, content_block: block }), state: { ...closed.state, index, open: kind } };
}

function close(events: string, state: EncodeState): EncodeStep {
  if (state.open === null) return { events, state };
  return { events: events + event('content_block_stop', { index: state.index }), state: { ...state, open: null } };
}

function begin(state: EncodeState): EncodeStep {
  if (state.started) return { events: '', state };
  const usage = state.startUsage ?? { inputTokens: state.estimatedInputTokens, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
  const message = { id: state.id, type: 'message', role: 'assistant', model: state.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...encodeAnthropicUsage(usage), output_tokens: Math.max(1, usage.outputTokens) } };
  return { events: event('message_start', { message }) + event('ping', {}), state: { ...state, started: true } };
}

/** A named event whose `type` repeats the name, as Anthropic sends them. */
export function event(type: string, payload: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`;
}
