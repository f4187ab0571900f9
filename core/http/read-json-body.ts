import type { IncomingMessage } from 'node:http';
import { InvalidRequestError } from '../errors/patchbay-error.ts';

/** Bodies carry images as data URLs, so allow generously, but bounded. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** Reads and parses a JSON body without a framework's middleware, with errors that say what to fix. */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) throw tooLarge(limit);
  const { parts, size } = await collect(req, limit);
  if (size === 0) throw new InvalidRequestError('The request has no body; send a JSON object with Content-Type: application/json.');
  const text = parts.length === 1 ? parts[0].toString('utf8') : Buffer.concat(parts, size).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidRequestError(`The request body is not valid JSON (${(error as Error).message}).`, null, 'invalid_json');
  }
}

function tooLarge(limit: number): InvalidRequestError {
  return new InvalidRequestError(`The request body is larger than ${limit / 1024 / 1024} MB.`, null, 'request_too_large', 413);
}

/** Gathers the body with plain events: cheaper per request than an async iterator. */
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
    req.once('end', () => {
      ended = true;
      resolve({ parts, size });
    });
    req.once('error', reject);
    // A client that goes away mid-body ends neither with 'end' nor always with 'error'.
    req.once('close', () => {
      if (!ended) reject(new InvalidRequestError('The client closed the connection before sending the whole body.', null, 'client_closed'));
    });
  });
}
