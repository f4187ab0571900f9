// The usage writer thread: its own SQLite connection to Patchbay's database, committing the rows
// the server's main thread sends it. Commits (and WAL checkpoints, which wait for the disk) then
// never stall a request. Started by UsageStore (start-writer-thread.ts); the other end of the
// protocol is UsageWriteQueue.
import Database from 'better-sqlite3';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { collectAllGarbage } from '../runtime/collect-all-garbage.ts';
import { UsageBatchWriter, rowsFromJson, usageWriters, type RowsJson } from './usage-batch-writer.ts';
import type { ContentEntry } from './usage-record.ts';

export interface WriterThreadData {
  path: string;
  /** This thread's row in usage_writers, where each commit records the last batch number it holds. */
  token: string;
  /** [0]: the highest batch number committed; [1]: 1 while the database refuses writes. */
  state: SharedArrayBuffer;
}

/** A batch from the main thread: rows (see rowsToJson) and content as JSON (strings copy faster than a structured clone of objects). */
export type WriterMessage = { type: 'batch'; seq: number; rows: RowsJson; content: string | null } | { type: 'flush' } | { type: 'idle' } | { type: 'close' };

const { path, token, state } = workerData as WriterThreadData;

// This thread yields the CPU to request handling: on Linux a thread has its own nice value
// (/proc/thread-self names its id). Elsewhere, or if not allowed, it runs at normal priority.
try {
  const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (threadId > 0) setPriority(threadId, 10);
} catch {
  // Not Linux, or not permitted: commits still run off the request thread.
}
const shared = new Int32Array(state);
const port = parentPort!;
const db = new Database(path);
db.pragma('busy_timeout = 200');
// Durable against a crash of Patchbay; only an OS crash may lose the last commits (as on the main connection).
db.pragma('synchronous = NORMAL');
// SQLite's page cache for this connection: 2 MiB instead of better-sqlite3's 16 MB. Appending rows
// touches only the right edge of the table and of each index (a few hundred KB), but SQLite keeps
// every page it wrote until the cache is full, so under steady traffic the thread's memory grew by
// the whole 16 MB over the first minutes. Measured with bench/writer-cost.ts on 300,000 rows: CPU
// per committed row the same within the noise at 1, 2, 4 and 16 MB (15-21 µs in batches of 500).
const WRITER_CACHE_KIB = 2048;
db.pragma(`cache_size = -${WRITER_CACHE_KIB}`);

let received = 0;
const markCommitted = usageWriters.prepareMark(db);
const writer = new UsageBatchWriter(
  db,
  (message) => port.postMessage({ type: 'log', message }),
  () => {
    // Everything received so far is in the database: wake a main thread waiting in flush().
    Atomics.store(shared, 0, received);
    Atomics.store(shared, 1, 0);
    Atomics.notify(shared, 0);
  },
  () => markCommitted.run(token, received),
);

port.on('message', (message: WriterMessage) => {
  if (message.type === 'batch') {
    received = message.seq;
    writer.write(rowsFromJson(message.rows), message.content ? (JSON.parse(message.content) as ContentEntry[]) : []);
  } else if (message.type === 'flush') {
    writer.flush();
  } else if (message.type === 'idle') {
    // Patchbay went idle: SQLite's page cache and V8's pooled pages go back to the system.
    writer.flush();
    db.pragma('shrink_memory');
    collectAllGarbage();
  } else {
    writer.flush();
    usageWriters.forget(db, token);
    db.close();
    port.close();
    return;
  }
  if (writer.isFailing) {
    Atomics.store(shared, 1, 1);
    Atomics.notify(shared, 0);
  }
});
