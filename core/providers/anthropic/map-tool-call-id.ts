import { createHash } from 'node:crypto';

const ALLOWED_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * OpenAI tool-call id -> Anthropic tool_use id. Anthropic accepts only `[a-zA-Z0-9_-]`; ids from
 * other providers (or clients) may hold dots, colons or pipes. Valid ids pass unchanged, so
 * Anthropic's own `toolu_...` ids round-trip. Others are rewritten deterministically, the same in
 * the assistant's tool_use and in the tool message's tool_result, with a digest of the original so
 * that two ids differing only in a replaced character do not collide.
 */
export function mapToolCallId(id: string): string {
  if (ALLOWED_ID.test(id)) return id;
  const readable = id.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 40);
  const digest = createHash('sha256').update(id).digest('hex').slice(0, 12);
  return `${readable}_${digest}`;
}
