/** Of a long text, this many characters from each end go into the fingerprint (with its length). */
const TEXT_ENDS = 64;
/** Values nested deeper than this (tool schemas) count by their shape above it. */
const MAX_DEPTH = 8;

/**
 * Names the session of a request that names none: a hash of its stable prefix (tools, system, the
 * messages up to the first user turn), which every later turn of the same conversation repeats and
 * which is what a provider's prompt cache keys on. Kept in memory only, never recorded.
 *
 * The hash is of a fingerprint, not of the whole prefix: tools by their names, each long text by its
 * length and its two ends. An agent's prefix is tens of kilobytes: JSON.stringify and SHA-256 of it
 * cost 21 times the whole plan in bench/sticky-sessions.ts, walking every tool schema 5 times; the
 * fingerprint is a few hundred characters whatever the prompt. Two conversations that differ only
 * in the middle of a long text share an endpoint: affinity, unlike a session id, only has to be
 * usually right.
 */
export function hashPrefix(parts: unknown[]): string | null {
  const pieces: string[] = [];
  fingerprint(parts, pieces, 0);
  const text = pieces.join('\u0000');
  // A prefix of a few characters names no conversation in particular.
  if (text.length < 64) return null;
  return hashText(text);
}

/**
 * 64 bits of two 32-bit string hashes (FNV-1a and djb2-xor), as hex. Not cryptographic: a collision
 * only makes two conversations share an endpoint. A SHA-256 object per request cost more than
 * the whole plan.
 */
function hashText(text: string): string {
  let fnv = 0x811c9dc5;
  let djb = 5381;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    fnv = Math.imul(fnv ^ c, 0x01000193);
    djb = (Math.imul(djb, 33) ^ c) | 0;
  }
  return (fnv >>> 0).toString(16).padStart(8, '0') + (djb >>> 0).toString(16).padStart(8, '0');
}

function fingerprint(value: unknown, into: string[], depth: number): void {
  if (typeof value === 'string') {
    into.push(value.length <= 2 * TEXT_ENDS ? value : `${value.length}:${value.slice(0, TEXT_ENDS)}${value.slice(-TEXT_ENDS)}`);
  } else if (Array.isArray(value)) {
    into.push(`[${value.length}`);
    if (depth < MAX_DEPTH) for (const item of value) fingerprint(item, into, depth + 1);
  } else if (value !== null && typeof value === 'object') {
    into.push('{');
    if (depth < MAX_DEPTH) {
      for (const key in value) {
        into.push(key);
        fingerprint((value as Record<string, unknown>)[key], into, depth + 1);
      }
    }
  } else {
    into.push(String(value));
  }
}

/**
 * A tool list by its names: what names an agent's toolset (its schemas and descriptions repeat with
 * the names), for a fraction of the cost of walking every schema.
 */
export function toolNames(tools: unknown): string {
  if (!Array.isArray(tools)) return '';
  let names = '';
  for (const tool of tools) {
    const t = tool as { name?: unknown; type?: unknown; function?: { name?: unknown } };
    names += `${String(t?.function?.name ?? t?.name ?? t?.type)},`;
  }
  return names;
}

/** Chat messages up to and including the first user message. */
export function leadingMessages<T extends { role: string }>(messages: T[]): T[] {
  const user = messages.findIndex((m) => m.role === 'user');
  return messages.slice(0, user < 0 ? messages.length : user + 1);
}
