import { findSecrets, isSecretFormCharacter, longestSecretForm, REDACTED, scanningForSecrets } from '../errors/redact-secrets.ts';

const EMPTY = Buffer.alloc(0);
const REDACTED_BYTES = Buffer.from(REDACTED, 'latin1');
/** What `\s` matches among latin1 codes: a secret's characters may be spread with it, so a run of them may hold some. */
const WHITESPACE = new Uint8Array(256);
for (const c of ' \t\n\v\f\r\u00a0') WHITESPACE[c.charCodeAt(0)] = 1;

/** The most a scanner holds back: twice the longest form (room for whitespace inside it), and a little more. */
export function scanWindow(): number {
  return 2 * longestSecretForm() + 16;
}

/**
 * Redacts provider secrets from an answer as its chunks pass, across chunk boundaries: the
 * redaction of redact-secrets.ts (every form of every distinctive secret, findSecrets) applied to
 * a byte stream. Bytes are read as latin1 (one character per byte, so no UTF-8 sequence is ever
 * split or changed: the forms are ASCII) and what is not a secret is passed on as the same bytes,
 * without copying the chunk.
 *
 * A chunk is passed on at once but for its end when that end could be the start of a secret: the
 * trailing run of characters secrets are made of (whitespace inside the run included, at most
 * scanWindow bytes), which waits for the next chunk. An SSE event ends in a blank line, so a
 * stream's events are not held back; a JSON answer's chunk ends mid-text and its last words wait.
 */
export class SecretScanner {
  private held: Buffer = EMPTY;

  /** What of the answer so far can be passed on now, redacted: the pieces in order (none, one, or a few). */
  push(chunk: Buffer): Buffer[] {
    const held = this.held;
    if (!scanningForSecrets()) {
      this.held = EMPTY;
      return held.length === 0 ? [chunk] : [held, chunk];
    }
    const window = scanWindow();
    let spans: [number, number][];
    if (held.length === 0) spans = findSecrets(chunk);
    else if (chunk.length <= window) return this.pushJoined(Buffer.concat([held, chunk]));
    else {
      // The junction (what was held and the chunk's first window) and the chunk itself, without copying the chunk.
      const junction = findSecrets(Buffer.concat([held, chunk.subarray(0, window)]));
      spans = merge(junction, findSecrets(chunk).map(([start, end]): [number, number] => [start + held.length, end + held.length]));
    }
    const length = held.length + chunk.length;
    const cut = cutAt(chunk, held.length, spans, window);
    this.held = cut < length ? Buffer.from(chunk.subarray(cut - held.length)) : EMPTY;
    return redacted([held, chunk], spans, cut);
  }

  /** The answer ended: what was held, redacted. */
  end(): Buffer[] {
    const data = this.held;
    this.held = EMPTY;
    if (data.length === 0) return [];
    if (!scanningForSecrets()) return [data];
    return redacted([data], findSecrets(data), data.length);
  }

  /** A short chunk joined to what was held (both small): scanned as one. */
  private pushJoined(data: Buffer): Buffer[] {
    const spans = findSecrets(data);
    const cut = cutAt(data, 0, spans, scanWindow());
    this.held = cut < data.length ? Buffer.from(data.subarray(cut)) : EMPTY;
    return redacted([data], spans, cut);
  }
}

/**
 * A whole answer (held, not passed through) with every distinctive secret redacted: the same
 * buffer when it holds none, which is nearly always (one probe per 8 bytes, bench/secret-scan.ts).
 */
export function redactAnswer(data: Buffer): Buffer {
  if (!scanningForSecrets()) return data;
  const spans = findSecrets(data);
  return spans.length === 0 ? data : Buffer.concat(redacted([data], spans, data.length));
}

/**
 * Where to stop passing on: the start of the trailing run that may begin a secret (in `last`, the
 * final piece, which begins at `offset`), moved to the end of a secret found across it.
 */
function cutAt(last: Buffer, offset: number, spans: [number, number][], window: number): number {
  const limit = Math.max(0, last.length - window);
  let from = last.length;
  for (let at = last.length - 1; at >= limit; at--) {
    const code = last[at];
    if (isSecretFormCharacter(code)) from = at;
    else if (WHITESPACE[code] !== 1) break;
  }
  // A run longer than the window holds only the window: a secret that starts before it is whole (found now).
  let cut = offset + from;
  for (const [start, end] of spans) if (start < cut && end > cut) cut = end;
  return cut;
}

/** Sorted spans of two lists, overlaps merged. */
function merge(a: [number, number][], b: [number, number][]): [number, number][] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const all = [...a, ...b].sort((x, y) => x[0] - y[0]);
  const merged: [number, number][] = [all[0]];
  for (const span of all.slice(1)) {
    const last = merged[merged.length - 1];
    if (span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([span[0], span[1]]);
  }
  return merged;
}

/** Bytes [0, cut) of the pieces laid end to end, with the spans inside them replaced: subarrays, not copies. */
function redacted(pieces: Buffer[], spans: [number, number][], cut: number): Buffer[] {
  const out: Buffer[] = [];
  const take = (from: number, to: number) => {
    let offset = 0;
    for (const piece of pieces) {
      const start = Math.max(from, offset);
      const end = Math.min(to, offset + piece.length);
      if (end > start) out.push(start === offset && end === offset + piece.length ? piece : piece.subarray(start - offset, end - offset));
      offset += piece.length;
    }
  };
  let at = 0;
  for (const [start, end] of spans) {
    if (end > cut) break;
    take(at, start);
    out.push(REDACTED_BYTES);
    at = end;
  }
  take(at, cut);
  return out;
}
