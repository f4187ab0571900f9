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
  fnv = 0x811c9dc5;
  djb = 5381;
  length = 0;
  pieces = 0;
  fingerprint(parts, 0);
  // A prefix of a few characters names no conversation in particular.
  if (length < 64) return null;
  return (fnv >>> 0).toString(16).padStart(8, '0') + (djb >>> 0).toString(16).padStart(8, '0');
}

/**
 * The hash is 64 bits of two 32-bit string hashes (FNV-1a and djb2-xor) of the fingerprint's pieces
 * joined by NUL, folded in as the pieces are met: no array of pieces, no joined string. Not
 * cryptographic: a collision only makes two conversations share an endpoint. A SHA-256 object per
 * request cost more than the whole plan. Module state: a fingerprint is taken synchronously, one at a time.
 */
let fnv = 0;
let djb = 0;
let length = 0;
let pieces = 0;

/** Starts a piece: the NUL that joins it to the one before. */
function startPiece(): void {
  if (pieces++ > 0) mix(text0, 0, 1);
}

const text0 = '\u0000';

function mix(text: string, from: number, to: number): void {
  let f = fnv;
  let d = djb;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    f = Math.imul(f ^ c, 0x01000193);
    d = (Math.imul(d, 33) ^ c) | 0;
  }
  fnv = f;
  djb = d;
  length += to - from;
}

function piece(text: string): void {
  startPiece();
  mix(text, 0, text.length);
}

function fingerprint(value: unknown, depth: number): void {
  if (typeof value === 'string') {
    if (value.length <= 2 * TEXT_ENDS) return piece(value);
    // `${length}:${first 64}${last 64}`
    startPiece();
    const size = `${value.length}:`;
    mix(size, 0, size.length);
    mix(value, 0, TEXT_ENDS);
    mix(value, value.length - TEXT_ENDS, value.length);
  } else if (Array.isArray(value)) {
    piece(`[${value.length}`);
    if (depth < MAX_DEPTH) for (const item of value) fingerprint(item, depth + 1);
  } else if (value !== null && typeof value === 'object') {
    piece('{');
    if (depth < MAX_DEPTH) {
      for (const key in value) {
        piece(key);
        fingerprint((value as Record<string, unknown>)[key], depth + 1);
      }
    }
  } else {
    piece(String(value));
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
