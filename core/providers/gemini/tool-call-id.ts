import { randomBytes } from 'node:crypto';
import type { GeminiFunctionCall } from './gemini-wire.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Makes a fresh OpenAI tool-call id; injected so tests can make ids predictable. */
export type ToolCallIdSource = () => string;

/**
 * Gemini's API usually sends function calls without an id, but OpenAI clients need one to answer
 * with `tool_call_id`. Ids are random (`call_` + 24 characters, like OpenAI's) so they never
 * collide across turns of one conversation. On the way back ids are not sent to Gemini: its id
 * fields are optional, an id in the history may come from another provider (after a fallback),
 * and Gemini pairs responses with calls by order and name. The adapter finds each response's
 * function name through the assistant tool call with the same id (map-messages.ts).
 */
export const randomToolCallId: ToolCallIdSource = () => {
  const bytes = randomBytes(24);
  let id = 'call_';
  for (const byte of bytes) id += ALPHABET[byte % ALPHABET.length];
  return id;
};

/** The OpenAI id of one function call: Gemini's own id when it sent one, else a fresh one. */
export function toolCallIdFor(call: GeminiFunctionCall, nextId: ToolCallIdSource): string {
  return typeof call.id === 'string' && call.id !== '' ? call.id : nextId();
}
