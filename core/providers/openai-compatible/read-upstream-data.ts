import { ProviderError } from '../../errors/provider-error.ts';
import type { CancelSignal } from '../cancel-signal.ts';
import type { EventSourceMessage } from 'eventsource-parser';
import { sseDecoder } from '../read-sse-events.ts';
import { toTransportError } from '../transport-error.ts';
import type { UpstreamResponse } from '../upstream-response.ts';
import { streamError } from './parse-stream-data.ts';

/**
 * The data payloads of an OpenAI-style SSE stream, as they arrive, up to `data: [DONE]`, each
 * passed through `map` (what the client gets for it), then `finish` after [DONE]. An
 * `event: error` or a body that ends before `[DONE]` is a ProviderError, never a silent end.
 *
 * SSE parsing, the [DONE] and error checks and the mapping run in this one reader, a plain
 * iterator rather than an async generator: a payload reaches the caller one microtask turn after
 * its bytes were read (the body's), which is on the way to every stream's first byte and every
 * chunk after it. The events of one body chunk are mapped together; a failure among them is
 * thrown after the payloads before it, as they arrived.
 */
export function readUpstreamData(
  provider: string,
  response: UpstreamResponse,
  signal: CancelSignal,
  map: (data: string) => string[] = (data) => [data],
  finish: () => string[] = () => [],
): AsyncIterator<string> {
  return new UpstreamData(provider, response.body[Symbol.asyncIterator](), signal, map, finish);
}

const DONE: IteratorResult<string> = Object.freeze({ value: undefined, done: true });

class UpstreamData implements AsyncIterator<string> {
  private readonly provider: string;
  private readonly body: AsyncIterator<Uint8Array>;
  private readonly signal: CancelSignal;
  private readonly map: (data: string) => string[];
  private readonly finish: () => string[];
  private readonly decode: (chunk: Uint8Array) => EventSourceMessage[];
  /** Payloads mapped from the last body chunk, not yet taken. */
  private out: string[] = [];
  private taken = 0;
  /** Thrown once the payloads before it were taken. */
  private failure: unknown = null;
  /** [DONE] arrived, or a failure was thrown: nothing more comes. */
  private finished = false;
  /** The body was read to its end or failed: nothing to give back. */
  private bodyDone = false;

  constructor(provider: string, body: AsyncIterator<Uint8Array>, signal: CancelSignal, map: (data: string) => string[], finish: () => string[]) {
    this.provider = provider;
    this.body = body;
    this.signal = signal;
    this.map = map;
    this.finish = finish;
    this.decode = sseDecoder(provider);
  }

  next(): Promise<IteratorResult<string>> {
    if (this.taken < this.out.length) return Promise.resolve({ value: this.out[this.taken++], done: false });
    if (this.failure !== null) {
      const failure = this.failure;
      this.failure = null;
      this.stop();
      return Promise.reject(failure);
    }
    if (this.finished) return Promise.resolve(DONE);
    return this.body.next().then(this.onPiece, this.onBodyFailure);
  }

  /** The caller stops early: the body drops the rest. */
  return(): Promise<IteratorResult<string>> {
    this.out = [];
    this.failure = null;
    this.stop();
    return Promise.resolve(DONE);
  }

  private readonly onPiece = (next: IteratorResult<Uint8Array>): IteratorResult<string> | Promise<IteratorResult<string>> => {
    if (next.done) {
      this.bodyDone = true;
      this.failure = new ProviderError({ provider: this.provider, upstreamStatus: 502, message: 'the stream ended before it was complete', retryable: true, kind: 'stream' });
      return this.next();
    }
    this.out = [];
    this.taken = 0;
    try {
      const events = this.decode(next.value);
      for (let index = 0; index < events.length; index++) {
        const event = events[index];
        const data = oneLine(event.data);
        if (data === '[DONE]') {
          this.finished = true;
          for (const out of this.finish()) this.out.push(out);
          // Stopped before the body's end: the body drops the rest (the connection stays open).
          this.stop();
          break;
        }
        if (event.event === 'error') throw errorEvent(this.provider, data);
        for (const out of this.map(data)) this.out.push(out);
      }
    } catch (error) {
      this.failure = error;
    }
    // An event split across chunks (nothing complete yet) reads on.
    return this.next();
  };

  private readonly onBodyFailure = (error: unknown): never => {
    this.bodyDone = true;
    this.finished = true;
    throw toTransportError(this.provider, error, this.signal);
  };

  private stop(): void {
    this.finished = true;
    if (this.bodyDone) return;
    this.bodyDone = true;
    void this.body.return?.()?.catch(() => undefined);
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
