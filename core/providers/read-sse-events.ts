import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { CancelSignal } from './cancel-signal.ts';
import type { UpstreamResponse } from './transport.ts';
import { toTransportError } from './transport.ts';

/**
 * Yields the server-sent events of an upstream body as they arrive. A connection that drops
 * mid-body surfaces as a ProviderError from the transport mapping. A consumer may stop at the
 * protocol's last event (`data: [DONE]`): the body then reads and drops its final bytes itself,
 * so the connection stays open for the next request.
 */
export async function* readSseEvents(provider: string, response: UpstreamResponse, signal?: CancelSignal): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const decoder = new TextDecoder();
  try {
    for await (const piece of response.body) {
      parser.feed(decoder.decode(piece, { stream: true }));
      while (pending.length) yield pending.shift()!;
    }
  } catch (error) {
    throw toTransportError(provider, error, signal);
  }
  // A trailing event without its blank line is incomplete: the stream ended mid-event, so it is dropped.
  parser.feed(decoder.decode());
  while (pending.length) yield pending.shift()!;
}
