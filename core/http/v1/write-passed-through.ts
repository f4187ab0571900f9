import type { ServerResponse } from 'node:http';
import { ProviderError } from '../../errors/provider-error.ts';
import type { RequestCancel } from '../../providers/cancel-signal.ts';
import type { JsonReply } from '../../providers/provider-adapter.ts';
import type { V1Context } from './v1-context.ts';
import type { V1Request } from './v1-request.ts';
import { waitForClient } from './wait-for-client.ts';

/**
 * Writes an answer passed through (JsonReply.rest): the head already read, then each piece as the
 * upstream sends it, the next pulled only once the client took the last (as serveStream does).
 * The headers are out, so a failure now cannot fall back, and a JSON body cannot carry an error:
 * the connection is cut (the client sees an incomplete answer), and the usage row records the
 * failure with the usage read so far.
 */
export async function writePassedThrough(res: ServerResponse, ctx: V1Context, request: V1Request, reply: JsonReply, signal: RequestCancel): Promise<void> {
  const rest = reply.rest!;
  const head = reply.bytes!;
  let sent = head.length;
  let stalled = false;
  try {
    res.writeHead(200, request.headers);
    if (!res.write(head) && (stalled = await waitForClient(res, ctx.clientStallTimeoutMs, signal))) throw signal.reason;
    for (let next = await rest.chunks.next(); !next.done; next = await rest.chunks.next()) {
      sent += next.value.length;
      if (!res.write(next.value) && (stalled = await waitForClient(res, ctx.clientStallTimeoutMs, signal))) throw signal.reason;
    }
    res.end();
  } catch (error) {
    request.status = signal.aborted ? 499 : 502;
    request.errorType = signal.aborted ? 'client_closed' : error instanceof ProviderError ? `answer_${error.type}` : 'answer_error';
    request.errorMessage = `${error instanceof Error ? error.message : String(error)} (after ${sent} bytes of the answer were sent)`;
    request.trace.gate?.failAfterFirstByte(error, request.status, signal.aborted);
    cutAfterFlush(res, ctx.clientStallTimeoutMs, signal.aborted);
    await rest.chunks.return?.(undefined);
  } finally {
    request.usage = rest.usage();
    if (stalled) request.errorType = 'client_stalled';
    // The content log keeps the head, not an answer of any size.
    if (request.content) request.content.response = `${head.toString('utf8')}… (${sent} bytes in all, passed through)`;
  }
}

/**
 * Ends a response that cannot be completed so that the client sees it cut: the connection is
 * closed without the body's last chunk marker. What was written still reaches a client that reads
 * (the socket is ended, which flushes, rather than destroyed); one that does not is dropped after
 * `stallMs`. A client already gone is just destroyed.
 *
 * Node corks a response on each write and hands the chunks to the socket on the next tick: the
 * socket is ended after that (setImmediate), or the last writes would meet an ended socket and
 * the client would miss the answer's last tens of KB.
 */
function cutAfterFlush(res: ServerResponse, stallMs: number, gone: boolean): void {
  const socket = res.socket;
  if (gone || !socket || socket.destroyed) {
    res.destroy();
    return;
  }
  setImmediate(() => {
    if (!socket.destroyed) socket.end();
  });
  setTimeout(() => socket.destroy(), stallMs).unref();
}
