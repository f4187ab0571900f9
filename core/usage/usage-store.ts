import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { AttemptReport } from '../errors/provider-error.ts';
import type { PatchbayDatabase } from '../sqlite/open-database.ts';
import { UsageBatchWriter, rowsFromJson, rowsToJson, toRowValues, usageWriters, type ContentEntry, type RowsJson, type RowValues } from './usage-batch-writer.ts';
import type { WriterMessage, WriterThreadData } from './usage-writer-thread.ts';
import type { EventHub } from '../events/event-hub.ts';
import { recordToRequestRow } from './to-request-row.ts';
import type { UsageSink } from './usage-backend.ts';
import { usageBreakdown, type BreakdownGroup, type UsageBreakdown } from './usage-breakdown.ts';
import { UsageQueries, type LogFilter, type UsageRange } from './usage-queries.ts';
import type { AdjustmentsRecord } from '../protocols/neutral/adjustments.ts';
import type { LatencyRow, RequestLogPage, RequestRow, SeriesBucket, SeriesGroup, SessionPage, UsageSeries, UsageTotals } from './usage-views.ts';

/** One request's metadata. Never content. */
export interface UsageRecord {
  ts: number;
  requestId: string;
  keyId: string | null;
  endpoint: 'chat' | 'completions' | 'embeddings' | 'models';
  requestedModel: string | null;
  provider: string | null;
  model: string | null;
  strategy: string | null;
  status: number;
  errorType: string | null;
  stream: boolean;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** USD per million tokens in force when the request ran. */
  inputPrice: number | null;
  outputPrice: number | null;
  costUsd: number;
  latencyMs: number;
  firstByteMs: number | null;
  attempts: AttemptReport[];
  /** Why routing chose this endpoint (X-Patchbay-Route-Reason), null when routing never ran. */
  routeReason?: string | null;
  /** Parts of promptTokens read from / written to the provider's prompt cache (absent = 0). */
  cacheReadTokens?: number;
  cacheWrite5mTokens?: number;
  cacheWrite1hTokens?: number;
  /** The part of completionTokens spent reasoning (absent = 0). */
  reasoningTokens?: number;
  /** What translation dropped or changed for the answering endpoint (X-Patchbay-Dropped / -Adjusted); null or absent: nothing. */
  adjustments?: AdjustmentsRecord | null;
  /** The label of the provider key that served (absent = none recorded). */
  providerKey?: string | null;
  /** The client's session, as it named it (capped at 128 characters), and where that name came from. */
  sessionId?: string | null;
  sessionSource?: string | null;
  /** The agent within the session that sent it (Claude Code's subagents), and its parent agent. */
  agentId?: string | null;
  parentAgentId?: string | null;
  /** List price of the prompt without its cache minus what it cost (absent = 0). */
  cacheSavedUsd?: number;
  /** The error message the client was answered with (absent: none). */
  errorMessage?: string | null;
  /** Served by an endpoint tried after another one failed. */
  fallback?: boolean;
}

/** What `patchbay usage --by` and GET /api/usage/summary group by. */
export const USAGE_GROUPS = ['model', 'provider', 'provider-key', 'key', 'day'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

export interface UsageTotalsRow {
  provider: string | null;
  model: string | null;
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
}

/** Atomics.waitAsync (Node 16+; typed from lib es2024, newer than this project's es2023). */
const waitAsync = (Atomics as unknown as { waitAsync(array: Int32Array, index: number, value: number, timeout: number): { async: boolean; value: Promise<string> | string } }).waitAsync;

/** How often queued rows are committed. A kill -9 loses at most the rows queued in this window. */
export const USAGE_FLUSH_INTERVAL_MS = 50;
const USAGE_FLUSH_BATCH = 500;
/** Longest flush() waits for the writer thread (it only waits this long on a disk that stalls). */
const FLUSH_WAIT_MS = 5000;

interface WriterThread {
  worker: Worker;
  state: Int32Array;
  /** Number of the last batch sent. */
  sent: number;
  /** Batches sent and not yet committed, kept until the thread confirms them (see writeHere). */
  unconfirmed: { seq: number; rows: RowsJson; content: ContentEntry[] }[];
  exited: Promise<void>;
}

/** Drops the batches the thread has committed (at least `known`: what the database says it committed). */
function confirm(thread: WriterThread, known = 0): void {
  const committed = Math.max(Atomics.load(thread.state, 0), known);
  let done = 0;
  while (done < thread.unconfirmed.length && thread.unconfirmed[done].seq <= committed) done++;
  if (done) thread.unconfirmed.splice(0, done);
}

/**
 * The writer thread's young generation: 1 MB semi-spaces (a batch of 500 rows, parsed, is ~0.3 MB).
 * `resourceLimits` alone cannot set it: V8's --max-semi-space-size, which the server runs with
 * (bin/node-flags.js, 16 MB for the request thread), overrides every isolate's own limit, and the
 * thread's young generation grew to 8 MB under steady traffic (bench/heap-probe.ts, 240 s at 16 in flight).
 */
const WRITER_SEMI_SPACE_MB = 1;

/** The --max-semi-space-size this process was started with (0: V8's default). */
function startSemiSpaceMb(): number {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const flag = flags.findLast((arg) => /^--max[-_]semi[-_]space[-_]size=\d+$/.test(arg));
  return flag ? Number(flag.split('=')[1]) : 0;
}

/**
 * Creates a Worker whose isolate has `mb` MB semi-spaces. V8 reads the flag when an isolate is
 * created (on the worker's own thread, before 'online'), so it is set for that moment and put back
 * after; the request thread's heap was configured at start and does not read it again.
 */
function withSemiSpace(mb: number, create: () => Worker): Worker {
  try {
    setFlagsFromString(`--max-semi-space-size=${mb}`);
  } catch {
    return create();
  }
  let worker: Worker;
  try {
    worker = create();
  } catch (error) {
    setFlagsFromString(`--max-semi-space-size=${startSemiSpaceMb()}`);
    throw error;
  }
  const restore = () => setFlagsFromString(`--max-semi-space-size=${startSemiSpaceMb()}`);
  worker.once('online', restore);
  worker.once('exit', restore);
  return worker;
}

export interface UsageStoreOptions {
  /**
   * Commit in a thread of its own (the server): the request thread only queues rows and hands each
   * batch over as one string. Otherwise (CLI, tests) commits run on the calling thread.
   */
  writerThread?: boolean;
  /** Where a `request` event goes as each row is recorded, with the key's name for display. */
  events?: { hub: EventHub; keyName: (keyId: string) => string | null };
  /** Longest flush() waits for the writer thread (default FLUSH_WAIT_MS; tests set their own). */
  flushWaitMs?: number;
}

/**
 * Usage rows are queued in memory and committed in batches, off the request path: one
 * transaction per batch keeps the write cost per request to microseconds, and with the writer
 * thread the commit itself (and SQLite's WAL checkpoints, which wait for the disk) leaves the
 * request thread altogether. Reads flush first, so they see every row recorded before them.
 */
export class UsageStore implements UsageSink {
  private readonly db: PatchbayDatabase;
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
  /** This store's writer thread's row in usage_writers (the last batch it committed). */
  private readonly writerToken = randomBytes(8).toString('hex');
  private readonly events: NonNullable<UsageStoreOptions['events']> | null;
  private readonly flushWaitMs: number;
  private queriesCache: UsageQueries | null = null;

  constructor(db: PatchbayDatabase, log: (message: string) => void = (message) => console.error(message), options: UsageStoreOptions = {}) {
    this.db = db;
    this.log = log;
    this.events = options.events ?? null;
    this.flushWaitMs = options.flushWaitMs ?? FLUSH_WAIT_MS;
    if (options.writerThread && !db.memory) {
      const state = new SharedArrayBuffer(8);
      // The same kind of file as this one: TypeScript sources, or core/ compiled to JavaScript.
      const script = new URL(import.meta.url.endsWith('.ts') ? './usage-writer-thread.ts' : './usage-writer-thread.js', import.meta.url);
      const worker = withSemiSpace(WRITER_SEMI_SPACE_MB, () =>
        new Worker(script, {
          workerData: { path: db.name, token: this.writerToken, state } satisfies WriterThreadData,
          // A small heap: the thread holds one batch at a time (more only while the disk refuses writes).
          resourceLimits: { maxYoungGenerationSizeMb: 2 * WRITER_SEMI_SPACE_MB, maxOldGenerationSizeMb: 64 },
        }),
      );
      worker.on('message', (message: { type: 'log'; message: string }) => log(message.message));
      worker.on('error', (error) => this.writeHere(`it failed: ${error.message}`));
      worker.unref();
      const exited = new Promise<void>((resolve) =>
        worker.once('exit', (code) => {
          if (!this.closing) this.writeHere(`it exited with code ${code}`);
          resolve();
        }),
      );
      this.thread = { worker, state: new Int32Array(state), sent: 0, unconfirmed: [], exited };
    } else {
      this.writer = new UsageBatchWriter(db, log);
    }
  }

  record(row: UsageRecord): void {
    this.queue.push(toRowValues(row));
    if (this.events !== null && this.events.hub.listening) {
      this.events.hub.emit('request', recordToRequestRow(row, row.keyId === null ? null : this.events.keyName(row.keyId)));
    }
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

  /** One key's tokens and cost since an instant (the caps' starting point at start-up). */
  keyTotalsSince(keyId: string, fromMs: number): { tokens: number; usd: number } {
    this.flush();
    return this.queries.keyTotalsSince(keyId, fromMs);
  }

  /** Totals grouped by key, provider, provider key (`groq (work)`), model (provider/model) or UTC day. */
  totalsBy(groupBy: UsageGroup, fromMs: number, toMs: number): (Omit<UsageTotalsRow, 'provider' | 'model'> & { group: string | null })[] {
    this.flush();
    return this.queries.totalsBy(groupBy, fromMs, toMs);
  }

  /** The queries on this store's database, without the flush (SqliteUsageReader flushes first, asynchronously). */
  get queries(): UsageQueries {
    return (this.queriesCache ??= new UsageQueries(this.db));
  }

  /** Totals over a range (from the hourly rollup). */
  totals(range: UsageRange): UsageTotals {
    this.flush();
    return this.queries.totals(range);
  }

  /** Per day or hour, per provider, model or key (from the hourly rollup). */
  series(range: UsageRange, bucket: SeriesBucket, groupBy: SeriesGroup): UsageSeries {
    this.flush();
    return this.queries.series(range, bucket, groupBy);
  }

  /** Requests, error rate and latency percentiles per provider and day (from the rollups). */
  latency(range: UsageRange): LatencyRow[] {
    this.flush();
    return this.queries.latency(range);
  }

  /** Totals and latency percentiles per model, provider or key over a range (the Usage page's tables). */
  breakdown(range: UsageRange, groupBy: BreakdownGroup): UsageBreakdown {
    this.flush();
    return usageBreakdown(this.db, range, groupBy);
  }

  /** The request log, newest first, a page at a time. */
  requestLog(range: UsageRange, filter: LogFilter, limit: number, cursor: { ts: number; id: number } | null): RequestLogPage {
    this.flush();
    return this.queries.log(range, filter, limit, cursor);
  }

  /** Sessions active in the range, newest activity first (the Sessions page). */
  sessions(range: UsageRange, filter: LogFilter, limit: number, cursor: { ts: number; session: string } | null): SessionPage {
    this.flush();
    return this.queries.sessions(range, filter, limit, cursor);
  }

  request(requestId: string): RequestRow | null {
    this.flush();
    return this.queries.request(requestId);
  }

  /** Rows between two instants, newest first. */
  rows(fromMs: number, toMs: number, limit = 1000): Record<string, unknown>[] {
    this.flush();
    return this.queries.rows(fromMs, toMs, limit);
  }
}

/** The first instant of a UTC month and of the month after it; `month` is YYYY-MM. */
export function monthRange(month: string): { from: number; to: number } {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month);
  if (!match) throw new RangeError(`Month must look like 2026-11, not "${month}"`);
  const year = Number(match[1]);
  const monthIndex = Number(match[2]) - 1;
  return { from: Date.UTC(year, monthIndex, 1), to: Date.UTC(year, monthIndex + 1, 1) };
}

export function currentMonth(now = Date.now()): string {
  return new Date(now).toISOString().slice(0, 7);
}
