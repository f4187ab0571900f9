import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { CancelSignal } from './cancel-signal.ts';
import type { UpstreamResponse } from './transport.ts';
import { toTransportError } from './transport.ts';

/** What is read of an upstream body after its consumer stopped early (past `[DONE]`), before the connection is given up instead. */
const DRAIN_LIMIT_BYTES = 64 * 1024;

/**
 * Yields the server-sent events of an upstream body as they arrive. A connection that drops
 * mid-body surfaces as a ProviderError from the transport mapping.
 *
 * A consumer that stops at the protocol's last event (`data: [DONE]`, `message_stop`) leaves the
 * body's final bytes (the chunked-encoding terminator) unread. Destroying the body then, as a
 * plain `for await` does on an early exit, would close the upstream connection (so the next
 * request pays for a new one) and build an AbortError with its stack trace every time. The rest
 * is read and dropped instead, so the keep-alive connection goes back to the pool.
 */
export async function* readSseEvents(provider: string, response: UpstreamResponse, signal?: CancelSignal): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const decoder = new TextDecoder();
  const body = response.body;
  let finished = false;
  try {
    for await (const piece of body.iterator({ destroyOnReturn: false })) {
      parser.feed(decoder.decode(piece as Uint8Array, { stream: true }));
      while (pending.length) yield pending.shift()!;
    }
    finished = true;
  } catch (error) {
    finished = true;
    throw toTransportError(provider, error, signal);
  } finally {
    if (!finished) drain(body);
  }
  // A trailing event without its blank line is incomplete: the stream ended mid-event, so it is dropped.
  parser.feed(decoder.decode());
  while (pending.length) yield pending.shift()!;
}

/** Reads what is left of a body and drops it; a body that goes on past the limit is destroyed (its connection closed). */
function drain(body: UpstreamResponse['body']): void {
  if (body.destroyed || body.readableEnded) return;
  let left = DRAIN_LIMIT_BYTES;
  body.on('error', () => {
    // Already stopped reading: a failure now concerns nobody.
  });
  body.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) body.destroy();
  });
}
