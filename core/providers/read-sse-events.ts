import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ProviderError } from '../errors/provider-error.ts';
import type { CancelSignal } from './cancel-signal.ts';
import type { UpstreamResponse } from './transport.ts';
import { toTransportError } from './transport.ts';
import { formatBytes, upstreamLimits } from './upstream-limits.ts';

/**
 * An SSE decoder for one body: feed it each chunk as it arrives and get the events it completed
 * (the same array each time, emptied on the next call: use them before feeding the next chunk).
 * Bytes split inside a character or an event are carried over to the next chunk, up to
 * upstreamLimits.maxEventBytes: an event (or a line) that grows past it without ending is the
 * upstream's failure, thrown as a ProviderError (the parser would otherwise hold it all). Counted
 * per chunk, so the bound is the limit plus one chunk.
 */
export function sseDecoder(provider: string): (chunk: Uint8Array) => EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const decoder = new TextDecoder();
  const limit = upstreamLimits.maxEventBytes;
  let pending = 0;
  return (chunk) => {
    events.length = 0;
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (events.length > 0) pending = 0;
    else if ((pending += chunk.length) > limit) throw eventTooLarge(provider, limit);
    return events;
  };
}

/** Like a connection dropped mid-stream: retryable until the first byte reached the client. */
function eventTooLarge(provider: string, limit: number): ProviderError {
  return new ProviderError({
    provider,
    upstreamStatus: 0,
    message: `sent a stream event larger than ${formatBytes(limit)} (Patchbay's limit for one event or line); the stream was cut. Check the provider's server`,
    retryable: true,
    kind: 'stream',
    code: 'upstream_event_too_large',
  });
}

/**
 * Yields the server-sent events of an upstream body as they arrive. A connection that drops
 * mid-body surfaces as a ProviderError from the transport mapping. A consumer may stop at the
 * protocol's last event: the body then reads and drops its final bytes itself, so the connection
 * stays open for the next request. A trailing event without its blank line is incomplete (the
 * stream ended mid-event), so it is dropped.
 */
export async function* readSseEvents(provider: string, response: UpstreamResponse, signal?: CancelSignal): AsyncGenerator<EventSourceMessage> {
  const decode = sseDecoder(provider);
  try {
    // The events of one chunk are all yielded before the next chunk is decoded (which reuses their array).
    for await (const piece of response.body) yield* decode(piece);
  } catch (error) {
    throw toTransportError(provider, error, signal);
  }
}
