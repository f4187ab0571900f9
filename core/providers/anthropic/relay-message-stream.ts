import { createForwardState, readForwardedEvent, type ForwardState } from '../../protocols/anthropic-messages/read-stream-usage.ts';
import { parseSseBlock, splitSseBlocks } from '../split-sse-blocks.ts';

/** Where a forwarded Messages stream stands. Never mutated. */
export interface RelayState {
  readonly forward: ForwardState;
  /** The start of an event still arriving. */
  readonly carry: string;
  /** Events before the first content block, held back until it comes (so an attempt that fails before it leaks nothing). */
  readonly held: string;
}

export function createRelayState(): RelayState {
  return { forward: createForwardState(), carry: '', held: '' };
}

/** What one piece of upstream text gives the client: the text to send (as the upstream wrote it), and the upstream's error, if one came. */
export interface RelayStep {
  state: RelayState;
  send: string;
  error: ForwardState['error'];
}

/**
 * One piece of an upstream Messages stream -> what reaches the client, decided event by event so
 * the outcome never depends on how the bytes were cut into network reads: the events before the
 * first content block are held back; from it on, each event is sent as it was written. An
 * `event: error` stops the relay: the events before it are sent when the stream was already
 * committed (the error then travels in the stream), and nothing is sent when it was not (another
 * endpoint may still answer).
 */
export function relayMessageText(text: string, state: RelayState): RelayStep {
  const { blocks, rest } = splitSseBlocks(state.carry + text);
  let { forward, held } = state;
  let send = '';
  for (const block of blocks) {
    const event = parseSseBlock(block);
    if (event) {
      const next = readForwardedEvent(event.event, event.data, forward);
      if (next.error) return { state: { forward: next, carry: '', held: '' }, send, error: next.error };
      forward = next;
    }
    if (!forward.committed) {
      held += block;
      continue;
    }
    send += held + block;
    held = '';
    // Nothing the upstream writes after message_stop is part of the answer.
    if (forward.stopped) return { state: { forward, carry: '', held: '' }, send, error: null };
  }
  return { state: { forward, carry: rest, held }, send, error: null };
}
