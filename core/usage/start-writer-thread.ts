// Starting the usage writer thread (usage-writer-thread.ts) with a young generation of its own size,
// and the main thread's record of the batches it sent and the thread has not yet confirmed.
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import type { RowsJson } from './usage-batch-writer.ts';
import type { ContentEntry } from './usage-record.ts';
import type { WriterThreadData } from './usage-writer-thread.ts';

export interface WriterThread {
  worker: Worker;
  state: Int32Array;
  /** Number of the last batch sent. */
  sent: number;
  /** Batches sent and not yet committed, kept until the thread confirms them (see UsageWriteQueue.writeHere). */
  unconfirmed: { seq: number; rows: RowsJson; content: ContentEntry[] }[];
  exited: Promise<void>;
}

/** Drops the batches the thread has committed (at least `known`: what the database says it committed). */
export function confirm(thread: WriterThread, known = 0): void {
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

/**
 * Starts the writer thread on the database file at `path`; `token` is its row in usage_writers.
 * Its log lines go to `log`; `stopped` hears of an error and of every exit (a close's included).
 */
export function startWriterThread(
  path: string,
  token: string,
  log: (message: string) => void,
  stopped: { error: (error: Error) => void; exit: (code: number) => void },
): WriterThread {
  const state = new SharedArrayBuffer(8);
  // The same kind of file as this one: TypeScript sources, or core/ compiled to JavaScript.
  const script = new URL(import.meta.url.endsWith('.ts') ? './usage-writer-thread.ts' : './usage-writer-thread.js', import.meta.url);
  const worker = withSemiSpace(WRITER_SEMI_SPACE_MB, () =>
    new Worker(script, {
      workerData: { path, token, state } satisfies WriterThreadData,
      // A small heap: the thread holds one batch at a time (more only while the disk refuses writes).
      resourceLimits: { maxYoungGenerationSizeMb: 2 * WRITER_SEMI_SPACE_MB, maxOldGenerationSizeMb: 64 },
    }),
  );
  worker.on('message', (message: { type: 'log'; message: string }) => log(message.message));
  worker.on('error', stopped.error);
  worker.unref();
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', (code) => {
      stopped.exit(code);
      resolve();
    }),
  );
  return { worker, state: new Int32Array(state), sent: 0, unconfirmed: [], exited };
}
