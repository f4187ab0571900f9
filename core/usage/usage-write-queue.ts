import { randomBytes } from 'node:crypto';
import type { PatchbayDatabase } from '../sqlite/open-database.ts';
import { confirm, startWriterThread, type WriterThread } from './start-writer-thread.ts';
import { USAGE_FLUSH_INTERVAL_MS } from './usage-backend.ts';
import { UsageBatchWriter, rowsFromJson, rowsToJson, usageWriters, type RowValues } from './usage-batch-writer.ts';
import type { ContentEntry } from './usage-record.ts';
import type { WriterMessage } from './usage-writer-thread.ts';

/** Atomics.waitAsync (Node 16+; typed from lib es2024, newer than this project's es2023). */
const waitAsync = (Atomics as unknown as { waitAsync(array: Int32Array, index: number, value: number, timeout: number): { async: boolean; value: Promise<string> | string } }).waitAsync;

const USAGE_FLUSH_BATCH = 500;
/** Longest flush() waits for the writer thread (it only waits this long on a disk that stalls). */
const FLUSH_WAIT_MS = 5000;

export interface UsageWriteQueueOptions {
  /**
   * Commit in a thread of its own (the server): the request thread only queues rows and hands each
   * batch over as one string. Otherwise (CLI, tests) commits run on the calling thread.
   */
  writerThread?: boolean;
  /** Longest flush() waits for the writer thread (default FLUSH_WAIT_MS; tests set their own). */
  flushWaitMs?: number;
}

/**
 * UsageStore's write side (UsageStore extends it with the reads). Rows are queued in memory and
 * committed in batches, off the request path: one transaction per batch keeps the write cost per
 * request to microseconds, and with the writer thread the commit itself (and SQLite's WAL
 * checkpoints, which wait for the disk) leaves the request thread altogether.
 */
export class UsageWriteQueue {
  protected readonly db: PatchbayDatabase;
  /**
   * Rows as the INSERT takes them, made when recorded: the request's record (its attempts, trace and
   * strings) is then garbage at once instead of surviving young-generation collections in the queue.
   */
  private queue: RowValues[] = [];
  private contentQueue: ContentEntry[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writer: UsageBatchWriter | null = null;
  private thread: WriterThread | null = null;
  private closing = false;
  private readonly log: (message: string) => void;
  /** This queue's writer thread's row in usage_writers (the last batch it committed). */
  private readonly writerToken = randomBytes(8).toString('hex');
  private readonly flushWaitMs: number;

  constructor(db: PatchbayDatabase, log: (message: string) => void, options: UsageWriteQueueOptions = {}) {
    this.db = db;
    this.log = log;
    this.flushWaitMs = options.flushWaitMs ?? FLUSH_WAIT_MS;
    if (options.writerThread && !db.memory) {
      this.thread = startWriterThread(db.name, this.writerToken, log, {
        error: (error) => this.writeHere(`it failed: ${error.message}`),
        exit: (code) => {
          if (!this.closing) this.writeHere(`it exited with code ${code}`);
        },
      });
    } else {
      this.writer = new UsageBatchWriter(db, log);
    }
  }

  /** Queues one row; a full batch is sent at once, otherwise within USAGE_FLUSH_INTERVAL_MS. */
  protected add(row: RowValues): void {
    this.queue.push(row);
    if (this.queue.length >= USAGE_FLUSH_BATCH) this.send();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.send(), USAGE_FLUSH_INTERVAL_MS);
      this.timer.unref();
    }
  }

  /** Request and response content of one request (only when the content log is turned on). */
  recordContent(entry: ContentEntry): void {
    this.contentQueue.push(entry);
  }

  /** Hands the queued rows to the writer (thread), which commits them. */
  private send(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.queue.length === 0 && this.contentQueue.length === 0) return;
    const rows = this.queue;
    const content = this.contentQueue;
    this.queue = [];
    this.contentQueue = [];
    if (this.thread) {
      const seq = ++this.thread.sent;
      // Kept as the strings sent (not the rows' arrays) until the thread confirms the batch.
      const text = rowsToJson(rows);
      const message: WriterMessage = { type: 'batch', seq, rows: text, content: content.length ? JSON.stringify(content) : null };
      confirm(this.thread);
      this.thread.unconfirmed.push({ seq, rows: text, content });
      this.thread.worker.postMessage(message);
    } else {
      this.writer!.write(rows, content);
    }
  }

  /** Commits every row recorded so far before returning (unless the database is refusing writes: then they stay queued for the retry). */
  flush(): void {
    this.send();
    if (!this.thread) {
      this.writer!.flush();
      return;
    }
    const { state, worker, sent } = this.thread;
    worker.postMessage({ type: 'flush' } satisfies WriterMessage);
    const deadline = performance.now() + this.flushWaitMs;
    for (;;) {
      const committed = Atomics.load(state, 0);
      if (committed >= sent || Atomics.load(state, 1) === 1) return;
      const left = deadline - performance.now();
      if (left <= 0) return;
      Atomics.wait(state, 0, committed, left);
    }
  }

  /**
   * flush() without blocking the event loop: waits (Atomics.waitAsync) until the writer thread has
   * committed every row recorded so far, up to FLUSH_WAIT_MS, or says the database refuses writes.
   * The asynchronous reads (SqliteUsageReader) and the caps' first read of a month use this.
   */
  async flushAsync(): Promise<void> {
    this.send();
    const thread = this.thread;
    if (!thread) {
      this.writer!.flush();
      return;
    }
    const { state, worker, sent } = thread;
    worker.postMessage({ type: 'flush' } satisfies WriterMessage);
    const deadline = performance.now() + this.flushWaitMs;
    for (;;) {
      // The thread died while we waited: its batches went to the main thread's writer, committed there.
      if (this.thread !== thread) return;
      const committed = Atomics.load(state, 0);
      if (committed >= sent || Atomics.load(state, 1) === 1) return;
      const left = deadline - performance.now();
      if (left <= 0) return;
      const waited = waitAsync(state, 0, committed, Math.min(left, 100));
      if (waited.async) await waited.value;
    }
  }

  /**
   * The writer thread is gone (it should never be): commit here from now on, starting with the
   * batches it was given but had not confirmed, so no row is lost.
   */
  private writeHere(why: string): void {
    const thread = this.thread;
    if (!thread) return;
    this.thread = null;
    // The thread may have committed a batch and died before saying so: the database knows.
    let committed = 0;
    try {
      committed = usageWriters.committed(this.db, this.writerToken);
      usageWriters.forget(this.db, this.writerToken);
    } catch {
      // The database cannot be read or written right now: go by what the thread reported.
    }
    confirm(thread, committed);
    this.log(`The usage writer thread stopped (${why}); usage rows are saved on the main thread from now on.`);
    this.writer = new UsageBatchWriter(this.db, this.log);
    for (const batch of thread.unconfirmed) this.writer.write(rowsFromJson(batch.rows), batch.content);
  }

  /**
   * Patchbay went idle (core/app/idle-memory.ts): the writer thread runs a memory-reducing full
   * collection of its own heap and shrinks its SQLite page cache; this connection's cache is
   * shrunk here. Rows still queued are sent first. Never called while requests flow.
   */
  releaseMemory(): void {
    this.send();
    this.db.pragma('shrink_memory');
    this.thread?.worker.postMessage({ type: 'idle' } satisfies WriterMessage);
  }

  /** Commits what is queued and stops the writer thread. */
  async close(): Promise<void> {
    this.closing = true;
    this.flush();
    if (!this.thread) return;
    // Referenced again: an unreferenced thread would let Node exit before it has closed the database.
    this.thread.worker.ref();
    this.thread.worker.postMessage({ type: 'close' } satisfies WriterMessage);
    await this.thread.exited;
  }
}
