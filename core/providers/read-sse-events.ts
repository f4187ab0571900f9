import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { CancelSignal } from './cancel-signal.ts';
import type { UpstreamResponse } from './transport.ts';
import { toTransportError } from './transport.ts';

/**
 * An SSE decoder for one body: feed it each chunk as it arrives and get the events it completed
 * (the same array each time, emptied on the next call: use them before feeding the next chunk).
 * Bytes split inside a character or an event are carried over to the next chunk.
 */
export function sseDecoder(): (chunk: Uint8Array) => EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const decoder = new TextDecoder();
  return (chunk) => {
    events.length = 0;
    parser.feed(decoder.decode(chunk, { stream: true }));
    return events;
  };
}

/**
 * Yields the server-sent events of an upstream body as they arrive. A connection that drops
 * mid-body surfaces as a ProviderError from the transport mapping. A consumer may stop at the
 * protocol's last event: the body then reads and drops its final bytes itself, so the connection
 * stays open for the next request. A trailing event without its blank line is incomplete (the
 * stream ended mid-event), so it is dropped.
 */
export async function* readSseEvents(provider: string, response: UpstreamResponse, signal?: CancelSignal): AsyncGenerator<EventSourceMessage> {
  const decode = sseDecoder();
  try {
    // The events of one chunk are all yielded before the next chunk is decoded (which reuses their array).
    for await (const piece of response.body) yield* decode(piece);
  } catch (error) {
    throw toTransportError(provider, error, signal);
  }
}
