import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { UpstreamResponse } from './transport.ts';
import { toTransportError } from './transport.ts';

/**
 * Yields the server-sent events of an upstream body as they arrive. A connection that drops
 * mid-body surfaces as a ProviderError from the transport mapping.
 */
export async function* readSseEvents(provider: string, response: UpstreamResponse, signal?: AbortSignal): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const decoder = new TextDecoder();
  try {
    for await (const piece of response.body) {
      parser.feed(decoder.decode(piece as Uint8Array, { stream: true }));
      while (pending.length) yield pending.shift()!;
    }
  } catch (error) {
    throw toTransportError(provider, error, signal);
  }
  // A trailing event without its blank line is incomplete: the stream ended mid-event, so it is dropped.
  parser.feed(decoder.decode());
  while (pending.length) yield pending.shift()!;
}
