import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { InvalidRequestError } from '../errors/patchbay-error.ts';
import { findInvalidUtf8 } from './find-invalid-utf8.ts';

/** Bodies carry images as data URLs, so allow generously, but bounded. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * Real requests nest a few levels (tool schemas perhaps 10-20). Deeper JSON parses, but the
 * recursive code after the parse does not survive it: JSON.stringify of the upstream body throws
 * RangeError at a few thousand levels, and schema translation recurses too.
 */
export const MAX_JSON_DEPTH = 64;

/** Reads and parses a JSON body without a framework's middleware, with errors that say what to fix. */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) throw tooLarge(limit);
  const { parts, size } = (await whole(req, declared)) ?? (await collect(req, limit));
  if (size === 0) throw new InvalidRequestError('The request has no body; send a JSON object with Content-Type: application/json.');
  const bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
  // toString would put U+FFFD in place of bad bytes, and the altered text would go upstream.
  if (!isUtf8(bytes)) throw notUtf8(bytes);
  const text = bytes.toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new InvalidRequestError(`The request body is not valid JSON (${(error as Error).message}).`, null, 'invalid_json');
  }
  if (exceedsDepth(text, MAX_JSON_DEPTH)) {
    throw new InvalidRequestError(`The request body is nested more than ${MAX_JSON_DEPTH} levels deep (objects and arrays within each other); flatten it.`, null, 'json_too_deep');
  }
  return body;
}

/**
 * Whether valid JSON text nests deeper than `max`, scanned without recursion. Strings are
 * skipped with indexOf, so a body of large base64 images costs little more than its brackets.
 */
export function exceedsDepth(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) return false;
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** A quote is escaped when an odd number of backslashes precede it. */
function isEscaped(text: string, quote: number): boolean {
  let backslashes = 0;
  for (let i = quote - 1; i >= 0 && text.charCodeAt(i) === 0x5c; i--) backslashes++;
  return backslashes % 2 === 1;
}

function notUtf8(bytes: Buffer): InvalidRequestError {
  const offset = findInvalidUtf8(bytes);
  const shown = Array.from(bytes.subarray(offset, offset + 4), (byte) => `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(' ');
  return new InvalidRequestError(
    `The request body is not valid UTF-8: the bytes at byte offset ${offset} (${shown}) are not a UTF-8 character. Send JSON encoded as UTF-8 (text in another encoding, e.g. Latin-1, must be converted first).`,
    null,
    'invalid_utf8',
  );
}

function tooLarge(limit: number): InvalidRequestError {
  return new InvalidRequestError(`The request body is larger than ${limit / 1024 / 1024} MB.`, null, 'request_too_large', 413);
}

/**
 * The body in one read when Node's parser already holds all of it. A client's body usually comes in
 * the same packet as its head: the 'request' event's handler runs before the parser reaches the
 * body, and one promise turn later the body is buffered on the request (the message is marked
 * complete only in a later turn of the event loop). When the buffer holds the Content-Length's
 * bytes, they are the whole body (Node frames the message by that length): taken with one read,
 * without the stream's resume, flow and end ticks, ~40-60 µs before a stream's first chunk (traced).
 * The request is then resumed, so its 'end' and 'close' still come as usual. Null when the body is
 * chunked or still on its way: then `collect`.
 */
async function whole(req: IncomingMessage, declared: number): Promise<{ parts: Buffer[]; size: number } | null> {
  // No Content-Length (chunked): NaN.
  if (!Number.isSafeInteger(declared)) return null;
  await undefined;
  if (req.readableFlowing || req.destroyed || req.readableLength !== declared) return null;
  const bytes = declared > 0 ? (req.read() as Buffer | null) : null;
  req.resume();
  return bytes ? { parts: [bytes], size: bytes.length } : { parts: [], size: 0 };
}

/**
 * Gathers the body with plain events: cheaper per request than an async iterator. `on`, not
 * `once`: each `once` allocates a bound wrapper per request, and 'end' comes once anyway while a
 * late 'error' or 'close' only settles a promise already settled.
 */
function collect(req: IncomingMessage, limit: number): Promise<{ parts: Buffer[]; size: number }> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const onData = (part: Buffer) => {
      size += part.length;
      if (size > limit) {
        req.off('data', onData);
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      parts.push(part);
    };
    let ended = false;
    req.on('data', onData);
    req.on('end', () => {
      ended = true;
      resolve({ parts, size });
    });
    req.on('error', reject);
    // A client that goes away mid-body ends neither with 'end' nor always with 'error'.
    req.on('close', () => {
      if (!ended) reject(new InvalidRequestError('The client closed the connection before sending the whole body.', null, 'client_closed'));
    });
  });
}
