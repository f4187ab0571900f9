import { mergeAnthropicUsage, type AnthropicUsage } from './map-usage.ts';

/** What Patchbay reads from an Anthropic stream it forwards unchanged. Never mutated. */
export interface ForwardState {
  /** A content block started (or the message ended): from here on the answer is committed to the client. */
  readonly committed: boolean;
  readonly stopped: boolean;
  readonly usage: AnthropicUsage | null;
  /** The upstream's `event: error` payload, when one came. */
  readonly error: { type?: string; message?: string } | null;
}

export function createForwardState(): ForwardState {
  return { committed: false, stopped: false, usage: null, error: null };
}

/**
 * One event of a forwarded Messages stream -> what it says about the stream: usage from
 * message_start and the cumulative message_delta, whether content began, whether it ended, or an
 * error. Events Patchbay does not know change nothing (they still reach the client).
 */
export function readForwardedEvent(name: string | undefined, data: string, state: ForwardState): ForwardState {
  if (name !== undefined && !INTERESTING.has(name)) return state;
  let parsed: { type?: string; message?: { usage?: AnthropicUsage }; usage?: AnthropicUsage; error?: { type?: string; message?: string } };
  try {
    parsed = JSON.parse(data) as typeof parsed;
  } catch {
    return state;
  }
  switch (parsed.type ?? name) {
    case 'message_start':
      return { ...state, usage: mergeAnthropicUsage(state.usage, parsed.message?.usage) };
    case 'content_block_start':
      return state.committed ? state : { ...state, committed: true };
    case 'message_delta':
      return { ...state, committed: true, usage: mergeAnthropicUsage(state.usage, parsed.usage) };
    case 'message_stop':
      return { ...state, committed: true, stopped: true };
    case 'error':
      return { ...state, error: parsed.error ?? {} };
    default:
      return state;
  }
}

const INTERESTING = new Set(['message_start', 'content_block_start', 'message_delta', 'message_stop', 'error']);
