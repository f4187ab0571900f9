import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ProviderError } from '../errors/provider-error.ts';
import type { CancelSignal } from './cancel-signal.ts';
import type { UpstreamResponse } from './upstream-response.ts';
import { toTransportError } from './transport-error.ts';
import { formatBytes, upstreamLimits } from './upstream-limits.ts';

/**
 * An SSE decoder for one body: feed it each chunk as it arrives and get the events it completed
 * (the same array each time, emptied on the next call: use them before feeding the next chunk).
 * Bytes split inside a character or an event are carried over to the next chunk, up to
 * upstreamLimits.maxEventBytes: an event (or a line) that grows past it without ending is the
 * upstream's failure, thrown as a ProviderError (the parser would otherwise hold it all). Counted
 * per chunk, so the bound is the limit plus one chunk.
 *
 * Bytes become text with Buffer's UTF-8 decoding (invalid bytes become U+FFFD, as TextDecoder
 * makes them), a character split between chunks held back until its last byte arrives: a
 * TextDecoder cost ~10 µs on each stream's first chunk (measured) and more CPU on every chunk.
 */
export function sseDecoder(provider: string): (chunk: Uint8Array) => EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  const limit = upstreamLimits.maxEventBytes;
  let pending = 0;
  /** The first bytes of a character the last chunk ended inside. */
  let split: Buffer | null = null;
  return (chunk) => {
    events.length = 0;
    let bytes = chunk instanceof Buffer ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (split) {
      bytes = Buffer.concat([split, bytes]);
      split = null;
    }
    const whole = wholeCharacters(bytes);
    if (whole < bytes.length) {
      split = Buffer.from(bytes.subarray(whole));
      bytes = bytes.subarray(0, whole);
    }
    parser.feed(bytes.toString('utf8'));
    if (events.length > 0) pending = 0;
    else if ((pending += chunk.length) > limit) throw eventTooLarge(provider, limit);
    return events;
  };
}

/**
 * How many leading bytes end on a character boundary: all of them unless the last 1-3 bytes are
 * the start of a multi-byte UTF-8 character still missing its continuation bytes. Invalid bytes
 * count as whole (decoding replaces them wherever they stand).
 */
export function wholeCharacters(bytes: Uint8Array): number {
  const length = bytes.length;
  if (length === 0 || bytes[length - 1] < 0x80) return length;
  let lead = length - 1;
  // Back over at most three continuation bytes (10xxxxxx) to the lead byte.
  while (lead > length - 4 && lead > 0 && (bytes[lead] & 0xc0) === 0x80) lead--;
  const byte = bytes[lead];
  const size = byte >= 0xc2 && byte <= 0xdf ? 2 : byte >= 0xe0 && byte <= 0xef ? 3 : byte >= 0xf0 && byte <= 0xf4 ? 4 : 1;
  return length - lead < size ? lead : length;
}

/** Like a connection dropped mid-stream: retryable until the first byte reached the client. */
export function eventTooLarge(provider: string, limit: number): ProviderError {
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
