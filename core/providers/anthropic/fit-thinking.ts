import { openSignature } from '../../protocols/neutral/signature-envelope.ts';
import type { UpstreamCall } from '../provider-adapter.ts';

/**
 * Anthropic's rules for replayed thinking (extended-thinking guide, "Preserving thinking blocks"),
 * applied to a Messages body on its way to an Anthropic upstream, whether it is the caller's own
 * (pass-through) or mapped from the neutral model.
 */

type Block = Record<string, unknown> & { type?: unknown };
type WireMessage = { role?: unknown; content?: unknown };

/**
 * The messages with only the thinking this provider can check: a thinking or redacted_thinking
 * block Patchbay sealed for another provider (a Gemini thought signature) is left out, one sealed
 * for this provider is opened, Anthropic's own (unsealed) stay as they are, and a thinking block
 * without a signature (another upstream's reasoning text) is left out: Anthropic refuses the whole
 * request for any of those ("Invalid `signature` in `thinking` block"). `leftOut` names who signed
 * each signed block left out. The same array when nothing changed.
 */
export function keepOwnThinking<M extends WireMessage>(messages: M[], provider: string | undefined): { messages: M[]; leftOut: (string | undefined)[] } {
  const leftOut: (string | undefined)[] = [];
  let changed = false;
  const kept = messages.map((message) => {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) return message;
    let touched = false;
    const content = (message.content as Block[]).flatMap((block) => {
      const own = ownBlock(block, provider, leftOut);
      if (own !== block) touched = true;
      return own ? [own] : [];
    });
    if (!touched) return message;
    changed = true;
    return { ...message, content };
  });
  // A turn of nothing but another provider's thinking is left out whole: Anthropic refuses an
  // empty message, and merges the user turns on either side of it.
  return { messages: changed ? kept.filter((m) => !Array.isArray(m.content) || m.content.length > 0) : messages, leftOut };
}

function ownBlock(block: Block, provider: string | undefined, leftOut: (string | undefined)[]): Block | null {
  if (block?.type !== 'thinking' && block?.type !== 'redacted_thinking') return block;
  const field = block.type === 'thinking' ? 'signature' : 'data';
  const value = block[field];
  if (typeof value !== 'string' || value === '') return null;
  const sealed = openSignature(value);
  if (!sealed) return block;
  if (sealed.provider !== provider) {
    leftOut.push(sealed.provider);
    return null;
  }
  if (sealed.redacted) return { type: 'redacted_thinking', data: sealed.value };
  return { ...block, signature: sealed.value };
}

/**
 * With thinking enabled, Anthropic answers a tool result only after its own thinking: the last
 * assistant message, the one whose tool calls the results answer, must begin with a thinking or
 * redacted_thinking block ("messages.3.content.0.type: Expected `thinking` or `redacted_thinking`,
 * but found `tool_use`"). When it does not, that turn came from another provider (or its thinking
 * was lost), and Anthropic's guide says what to do: answer it without thinking. Thinking comes
 * back with the next user turn, the first one Anthropic can think from. Returns the index of that
 * assistant message, or -1 when the body is fine as it is.
 *
 * Adaptive thinking is left alone: there the model may answer a turn without thinking itself, so
 * a turn without thinking proves nothing and Anthropic cannot require one.
 */
export function thinkingConflict(body: { thinking?: unknown; messages: WireMessage[] }): number {
  if ((body.thinking as { type?: unknown } | undefined)?.type !== 'enabled') return -1;
  const messages = body.messages;
  const last = messages[messages.length - 1];
  if (last?.role !== 'user' || !Array.isArray(last.content) || (last.content as Block[])[0]?.type !== 'tool_result') return -1;
  for (let i = messages.length - 2; i >= 0; i--) {
    if (messages[i].role !== 'assistant') continue;
    const first = Array.isArray(messages[i].content) ? (messages[i].content as Block[])[0]?.type : 'text';
    return first === 'thinking' || first === 'redacted_thinking' ? -1 : i;
  }
  return -1;
}

/**
 * The body as Anthropic can answer it: thinking turned off for this one request when the turn it
 * continues holds no thinking Anthropic made (thinkingConflict), and said so (X-Patchbay-Dropped:
 * thinking). Context editing's clear_thinking edit goes with it: it manages thinking blocks, and
 * Anthropic accepts it only with thinking on.
 */
export function fitThinking<B extends { thinking?: unknown; messages: WireMessage[]; context_management?: unknown }>(body: B, call: Pick<UpstreamCall, 'adjustments'>): B {
  if (thinkingConflict(body) < 0) return body;
  const fitted: B = { ...body };
  delete fitted.thinking;
  const edits = (body.context_management as { edits?: unknown } | undefined)?.edits;
  if (Array.isArray(edits) && edits.some(clearsThinking)) {
    const kept = edits.filter((edit) => !clearsThinking(edit));
    if (kept.length > 0) fitted.context_management = { ...(body.context_management as object), edits: kept };
    else delete fitted.context_management;
  }
  call.adjustments?.drop('thinking');
  return fitted;
}

const clearsThinking = (edit: unknown) => typeof (edit as { type?: unknown })?.type === 'string' && (edit as { type: string }).type.startsWith('clear_thinking');
