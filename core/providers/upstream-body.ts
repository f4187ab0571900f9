import type { Dispatcher } from 'undici';
import { SecretScanner } from './scan-secrets.ts';

/** A streamed upstream body: its chunks as they arrive, or all of it as text. */
export interface UpstreamBody extends AsyncIterable<Uint8Array> {
  /** The whole body; past `maxBytes` the upstream call is aborted and the error from `tooLarge` thrown. */
  text(maxBytes?: number, tooLarge?: (limit: number) => Error): Promise<string>;
}

const DONE: IteratorResult<Buffer> = Object.freeze({ value: undefined, done: true });
const FAILED = Symbol('failed');

/** What is read and dropped after the reader stopped early (past `[DONE]`), before the connection is given up instead. */
const DRAIN_LIMIT_BYTES = 64 * 1024;
/**
 * Bytes held for a reader that is behind (a client that does not read its stream) before undici is
 * asked to stop reading the socket: the upstream then waits in TCP, not in Patchbay's memory.
 */
const HIGH_WATER_BYTES = 256 * 1024;

/**
 * A response body fed by undici's dispatch callbacks, read with `for await`. It replaces what
 * undici's request() builds for every streamed answer (a Readable, its async-resource scope and
 * async iterator): the first chunk reaches the reader with less work, which is the time to first
 * byte of every stream.
 *
 * A reader that stops early (the protocol's last event arrived before the body's final bytes)
 * does not close the connection: the rest is read and dropped, up to a limit, so the keep-alive
 * connection goes back to the pool. A reader far behind pauses the socket until it has read everything held.
 *
 * Every chunk passes the secrets scan on its way in (scan-secrets.ts): an upstream that quotes a
 * provider key in an answer, successful or not, streamed or passed through, hands the reader the
 * answer with the key redacted, whichever chunks the key was split over.
 */
export class DispatchedBody implements UpstreamBody {
  controller: Dispatcher.DispatchController | null = null;
  private chunks: (Buffer | undefined)[] = [];
  private head = 0;
  private ended = false;
  private failure: unknown = null;
  /** The reader waiting for the next chunk. */
  private waiter: { resolve: (result: IteratorResult<Buffer>) => void; reject: (error: unknown) => void } | null = null;
  /** The reader has had the end or the failure, or stopped (return): next() answers done. */
  private done = false;
  private released = false;
  private dropped = 0;
  /** Bytes in `chunks` not yet read. */
  private queued = 0;
  private readonly scanner = new SecretScanner();

  /** From onResponseData. */
  push(chunk: Buffer): void {
    if (this.released) {
      this.dropped += chunk.length;
      if (this.dropped > DRAIN_LIMIT_BYTES) this.controller?.abort(new Error('the rest of the answer was not needed'));
      return;
    }
    for (const piece of this.scanner.push(chunk)) this.queue(piece);
  }

  private queue(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    if ((this.queued += chunk.length) > HIGH_WATER_BYTES && this.controller && !this.controller.paused) this.controller.pause();
    this.notify();
  }

  /** From onResponseEnd. */
  end(): void {
    if (!this.released) for (const piece of this.scanner.end()) this.queue(piece);
    this.ended = true;
    this.notify();
  }

  /** From onResponseError (a dropped connection, a timeout, a cancellation). */
  fail(error: unknown): void {
    if (this.ended) return;
    this.failure = error;
    this.notify();
  }

  get finished(): boolean {
    return this.ended || this.failure !== null;
  }

  /**
   * The chunks, read with `for await` (or next() by hand). A plain iterator rather than an async
   * generator: a chunk already held is handed over in one settled promise (one microtask turn for
   * the reader), not through a generator's resumption and its await of the yielded value, which is
   * the path of every stream's first chunk. A reader that stops early (return()) releases the rest.
   */
  [Symbol.asyncIterator](): AsyncIterator<Buffer> & AsyncIterable<Buffer> {
    const iterator: AsyncIterator<Buffer> & AsyncIterable<Buffer> = {
      next: () => this.next(),
      return: (value?: unknown) => {
        if (!this.finished) this.release();
        this.done = true;
        return Promise.resolve({ value: value as Buffer, done: true });
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  private next(): Promise<IteratorResult<Buffer>> {
    if (this.waiter) return Promise.reject(new Error('a streamed body is read by one reader, one chunk at a time'));
    const ready = this.take();
    if (ready) return ready;
    return new Promise<IteratorResult<Buffer>>((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  /** What the reader gets now (a chunk, the end, the failure), or undefined when it has to wait. */
  private take(): Promise<IteratorResult<Buffer>> | undefined {
    const result = this.settled();
    if (result === undefined) return undefined;
    return result === FAILED ? Promise.reject(this.failure) : Promise.resolve(result);
  }

  /** The next result as a value: an IteratorResult, FAILED for the failure, undefined when nothing is there yet. */
  private settled(): IteratorResult<Buffer> | typeof FAILED | undefined {
    if (this.done) return DONE;
    if (this.head < this.chunks.length) {
      const chunk = this.chunks[this.head]!;
      this.chunks[this.head++] = undefined;
      this.queued -= chunk.length;
      if (this.head === this.chunks.length) {
        this.chunks = [];
        this.head = 0;
        if (this.controller?.paused) this.controller.resume();
      }
      return { value: chunk, done: false };
    }
    if (this.failure !== null) {
      this.done = true;
      return FAILED;
    }
    if (this.ended) {
      this.done = true;
      return DONE;
    }
    return undefined;
  }

  async text(maxBytes = Infinity, tooLarge: (limit: number) => Error = (limit) => new Error(`the body is larger than ${limit} bytes`)): Promise<string> {
    const parts: Buffer[] = [];
    let size = 0;
    for await (const chunk of this) {
      if ((size += chunk.length) > maxBytes) {
        const error = tooLarge(maxBytes);
        this.controller?.abort(error);
        throw error;
      }
      parts.push(chunk);
    }
    return Buffer.concat(parts).toString('utf8');
  }

  /** Nobody will read the rest: the upstream call is aborted and what is held dropped. */
  cancel(reason: Error): void {
    if (this.finished) return;
    this.controller?.abort(reason);
    this.release();
  }

  /** The reader is done: drop what is held and what still comes (up to the limit). */
  private release(): void {
    this.released = true;
    this.chunks = [];
    this.head = 0;
    this.queued = 0;
    if (this.controller?.paused) this.controller.resume();
  }

  /** Hands a waiting reader what just arrived (a chunk, the end or the failure). */
  private notify(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    const result = this.settled();
    if (result === undefined) return;
    this.waiter = null;
    if (result === FAILED) waiter.reject(this.failure);
    else waiter.resolve(result);
  }
}
