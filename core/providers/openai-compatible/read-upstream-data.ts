import { ProviderError } from '../../errors/provider-error.ts';
import type { CancelSignal } from '../cancel-signal.ts';
import { sseDecoder } from '../read-sse-events.ts';
import { toTransportError, type UpstreamResponse } from '../transport.ts';
import { streamError } from './parse-stream-data.ts';

/**
 * The data payloads of an OpenAI-style SSE stream, as they arrive, up to `data: [DONE]`, each
 * passed through `map` (what the client gets for it), then `finish` after [DONE]. An
 * `event: error` or a body that ends before `[DONE]` is a ProviderError, never a silent end.
 *
 * SSE parsing, the [DONE] and error checks and the mapping run in this one generator: every
 * generator a chunk passes through costs it a few turns of the microtask queue, on the way to the
 * client's first byte and on every chunk after it.
 */
export async function* readUpstreamData(
  provider: string,
  response: UpstreamResponse,
  signal: CancelSignal,
  map: (data: string) => string[] = (data) => [data],
  finish: () => string[] = () => [],
): AsyncGenerator<string> {
  const decode = sseDecoder(provider);
  const body = response.body[Symbol.asyncIterator]();
  let ended = false;
  try {
    for (;;) {
      let next: IteratorResult<Uint8Array>;
      try {
        next = await body.next();
      } catch (error) {
        ended = true;
        throw toTransportError(provider, error, signal);
      }
      if (next.done) {
        ended = true;
        throw new ProviderError({ provider, upstreamStatus: 502, message: 'the stream ended before it was complete', retryable: true, kind: 'stream' });
      }
      const events = decode(next.value);
      for (let index = 0; index < events.length; index++) {
        const event = events[index];
        const data = oneLine(event.data);
        if (data === '[DONE]') {
          yield* finish();
          return;
        }
        if (event.event === 'error') throw errorEvent(provider, data);
        for (const out of map(data)) yield out;
      }
    }
  } finally {
    // Stopped before the body's end ([DONE], an error event, the client gone): the body drops the rest.
    if (!ended) await body.return?.();
  }
}

/**
 * An event's data on one line. An event of several `data:` lines arrives joined with "\n" (the
 * SSE rule), and a payload forwarded as it came would then break the client's `data: <json>`
 * framing. In JSON a newline can only stand between tokens (a string cannot hold a raw one), so a
 * space in its place is the same JSON. Most events have no newline: one native scan, no copy.
 */
export function oneLine(data: string): string {
  return data.indexOf('\n') === -1 ? data : data.replaceAll('\n', ' ');
}

function errorEvent(provider: string, data: string): ProviderError {
  let error: { message?: unknown; type?: unknown } | undefined;
  try {
    error = (JSON.parse(data) as { error?: { message?: unknown; type?: unknown } }).error;
  } catch {
    // The event's data is not JSON: the generic message below says enough.
  }
  const message = typeof error?.message === 'string' ? error.message : 'sent an error in the stream';
  return streamError(provider, message, typeof error?.type === 'string' ? error.type : undefined);
}
