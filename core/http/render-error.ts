import type { ServerResponse } from 'node:http';
import { PatchbayError } from '../errors/patchbay-error.ts';

/** The one place an error becomes an HTTP answer in OpenAI's shape. Unknown errors are 500s that hide their internals. */
export function renderError(res: ServerResponse, error: unknown, log: (message: string) => void): void {
  const known = error instanceof PatchbayError ? error : undefined;
  if (!known) log(`Internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  const status = known?.status ?? 500;
  const body = known
    ? known.toBody()
    : { error: { message: 'Patchbay hit an internal error; the details are in its log.', type: 'server_error', param: null, code: 'internal_error' } };
  if (res.headersSent) {
    res.end();
    return;
  }
  const payload = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', Buffer.byteLength(payload));
  for (const [name, value] of Object.entries(known?.headers ?? {})) res.setHeader(name, value);
  res.end(payload);
}

/** The same error as an SSE data event: how a failure travels once a stream has begun. */
export function errorEvent(error: unknown): string {
  const body =
    error instanceof PatchbayError
      ? error.toBody()
      : { error: { message: 'Patchbay hit an internal error; the details are in its log.', type: 'server_error', param: null, code: 'internal_error' } };
  return `data: ${JSON.stringify(body)}\n\n`;
}
