import { createHash } from 'node:crypto';

/**
 * Names the session of a request that names none: a hash of its stable prefix (tools, system, the
 * messages up to the first user turn), which every later turn of the same conversation repeats and
 * which is what a provider's prompt cache keys on. Kept in memory only, never recorded.
 */
export function hashPrefix(parts: unknown[]): string | null {
  const text = JSON.stringify(parts);
  // A prefix of a few characters names no conversation in particular.
  if (text.length < 64) return null;
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/** Chat messages up to and including the first user message. */
export function leadingMessages<T extends { role: string }>(messages: T[]): T[] {
  const user = messages.findIndex((m) => m.role === 'user');
  return messages.slice(0, user < 0 ? messages.length : user + 1);
}
