import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventListener } from '../events/event-hub.ts';

export interface EventStreamLimits {
  /** A client with more than this many bytes waiting to be sent is dropped. */
  maxBufferedBytes: number;
  pingMs: number;
}

export const EVENT_STREAM_LIMITS: EventStreamLimits = { maxBufferedBytes: 1_000_000, pingMs: 15_000 };

/**
 * GET /api/events: live events as Server-Sent Events until the client leaves. A client that stops
 * reading is dropped (its socket closed) once its unsent data passes the limit, so one stalled tab
 * can never make Patchbay buffer without bound; the dashboard's EventSource reconnects by itself.
 */
export function serveEvents(
  req: IncomingMessage,
  res: ServerResponse,
  subscribe: (listener: EventListener, onClose: () => void) => () => void,
  limits: EventStreamLimits = EVENT_STREAM_LIMITS,
): void {
  let ended = false;
  let ping: NodeJS.Timeout | undefined;
  const end = (destroy: boolean) => {
    if (ended) return;
    ended = true;
    clearInterval(ping);
    unsubscribe();
    if (destroy) res.destroy();
    else res.end();
  };
  const send = (frame: string) => {
    if (ended) return;
    res.write(frame);
    if (res.writableLength > limits.maxBufferedBytes) end(true);
  };
  const unsubscribe = subscribe(
    (name, data) => send(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`),
    () => end(false),
  );
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
  // Sends the headers now, so the client's EventSource opens before the first event.
  res.write(': connected\n\n');
  ping = setInterval(() => send(': ping\n\n'), limits.pingMs);
  ping.unref();
  req.socket.setTimeout(0);
  res.on('close', () => end(true));
}
