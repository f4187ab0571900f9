import type { ServerResponse } from 'node:http';
import { PatchbayError } from '../errors/patchbay-error.ts';
import type { IngressCodec } from '../protocols/ingress-codec.ts';
import { openAiCodec } from '../protocols/openai/openai-chat-codec.ts';
import { headerValue } from './header-value.ts';

/**
 * The one place an error becomes an HTTP answer, in the shape of the caller's protocol (OpenAI's
 * unless a codec says otherwise). Unknown errors are 500s that
 * hide their internals. It is the last resort of every handler, so it never throws: if writing
 * the answer fails (a header Node refuses, a body that does not serialise), that is logged and
 * the client gets a bare 500, or a closed connection once headers are out.
 */
export function renderError(res: ServerResponse, error: unknown, log: (message: string) => void, codec: IngressCodec = openAiCodec): void {
  try {
    writeError(res, error, log, codec);
  } catch (failure) {
    abandonResponse(res, failure, log, codec);
  }
}

function writeError(res: ServerResponse, error: unknown, log: (message: string) => void, codec: IngressCodec): void {
  const known = error instanceof PatchbayError ? error : undefined;
  if (!known) log(`Internal error: ${describe(error)}`);
  if (res.headersSent) {
    res.end();
    return;
  }
  const answer = codec.errorAnswer(error);
  const payload = JSON.stringify(answer.body);
  res.statusCode = answer.status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', Buffer.byteLength(payload));
  for (const [name, value] of Object.entries(known?.headers ?? {})) res.setHeader(name, headerValue(value));
  res.end(payload);
}

/**
 * When answering failed: log why, then a plain 500 in the caller's protocol's shape if nothing was
 * sent yet, else close the connection, so the client is never left waiting and no rejection
 * escapes the handler. Only headers Node always accepts are set: this must not fail the same way.
 */
export function abandonResponse(res: ServerResponse, failure: unknown, log: (message: string) => void, codec: IngressCodec = openAiCodec): void {
  try {
    log(`Internal error while answering: ${describe(failure)}`);
    if (res.headersSent || res.writableEnded) {
      res.destroy();
      return;
    }
    // `null` is no PatchbayError: every codec answers it with its internal-error body, hiding the failure's details.
    const payload = JSON.stringify(codec.errorAnswer(null).body);
    res.writeHead(500, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
    res.end(payload);
  } catch {
    res.destroy();
  }
}

function describe(error: unknown): string {
  try {
    return error instanceof Error ? (error.stack ?? error.message) : String(error);
  } catch {
    return 'an error that cannot be described';
  }
}

