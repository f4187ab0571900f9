import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HealthTracker } from '../../core/routing/health-tracker.ts';
import { seedHealth } from '../../core/routing/seed-health.ts';
import { SqliteUsageReader } from '../../core/usage/sqlite-usage-reader.ts';
import { openDatabase } from '../../core/sqlite/open-database.ts';
import type { UsageRecord } from '../../core/usage/usage-record.ts';
import { UsageStore } from '../../core/usage/usage-store.ts';

const row = (overrides: Partial<UsageRecord> = {}): UsageRecord => ({
  ts: Date.now(),
  requestId: `req_${Math.random()}`,
  keyId: 'key_1',
  endpoint: 'chat',
  requestedModel: 'gpt-4o',
  provider: 'openai',
  model: 'gpt-4o',
  strategy: 'balanced',
  status: 200,
  errorType: null,
  stream: false,
  promptTokens: 3,
  completionTokens: 4,
  totalTokens: 7,
  inputPrice: 2.5,
  outputPrice: 10,
  costUsd: 0.0001,
  latencyMs: 5,
  firstByteMs: 5,
  attempts: [{ provider: 'openai', model: 'gpt-4o', status: 200, error_type: null, message: null, latency_ms: 5 }],
  ...overrides,
});

describe('UsageStore', () => {
  const dirs: string[] = [];
  const open = () => {
    const dir = mkdtempSync(join(tmpdir(), 'patchbay-usage-'));
    dirs.push(dir);
    return { dir, db: openDatabase(dir) };
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  /** A store with its writer thread, the messages it logs, and the rows the database holds. */
  // flush() waits for the writer thread without a deadline a loaded machine could miss (the default is 5 s).
  const openThreaded = (flushWaitMs = 600_000) => {
    const { dir, db } = open();
    const logs: string[] = [];
    const store = new UsageStore(db, (m) => logs.push(m), { writerThread: true, flushWaitMs });
    const count = () => db.prepare('SELECT count(*) FROM usage').pluck().get();
    return { dir, db, logs, store, count };
  };

  it.each([
    ['on the calling thread', false],
    ['in the writer thread', true],
  ])('writes every field of every row in a batch (%s)', async (_where, writerThread) => {
    const { db } = open();
    const store = new UsageStore(db, undefined, { writerThread });
    // 37 rows, each field varied so a column mix-up shows.
    const rows = Array.from({ length: 37 }, (_, i) =>
      row({ ts: 1_700_000_000_000 + i, requestId: `req_${i}`, promptTokens: i, completionTokens: 2 * i, totalTokens: 3 * i, stream: i % 2 === 1, keyId: i % 3 ? 'key_1' : null, costUsd: i / 1000, firstByteMs: i === 36 ? null : i }),
    );
    for (const r of rows) store.record(r);
    store.flush();
    const saved = store.rows(0, Date.now() + 1, 100).reverse();
    expect(saved).toHaveLength(37);
    saved.forEach((s, i) => {
      expect(s).toMatchObject({ ts: rows[i].ts, request_id: `req_${i}`, key_id: rows[i].keyId, prompt_tokens: i, completion_tokens: 2 * i, total_tokens: 3 * i, stream: i % 2 === 1, cost_usd: i / 1000, first_byte_ms: i === 36 ? null : i, provider: 'openai', status: 200 });
      expect(s.attempts).toEqual(rows[i].attempts);
    });
    await store.close();
  });

  it('keeps rows and retries when the database is locked, instead of throwing on the request path', () => {
    const { dir, db } = open();
    const logs: string[] = [];
    const store = new UsageStore(db, (m) => logs.push(m));
    const other = new Database(join(dir, 'patchbay.db'));
    other.exec('BEGIN IMMEDIATE');
    store.record(row());
    store.record(row());
    expect(() => store.flush()).not.toThrow();
    expect(logs[0]).toMatch(/Cannot save usage rows yet .*2 kept in memory/);
    other.exec('COMMIT');
    other.close();
    store.flush();
    expect(db.prepare('SELECT count(*) FROM usage').pluck().get()).toBe(2);
    expect(logs.at(-1)).toContain('saved again');
  });

  it('with the writer thread: flush() returns with every row readable, a locked database neither blocks nor loses rows, close() saves the rest', async () => {
    // flush() may wait 700 s for the writer thread, past the tests' time limit (600 s): it must come
    // back as soon as the thread says the database refuses writes (were it to wait, the test would time out).
    const { dir, logs, store, count } = openThreaded(700_000);
    for (let i = 0; i < 3; i++) store.record(row());
    store.flush();
    expect(count()).toBe(3);

    const other = new Database(join(dir, 'patchbay.db'));
    other.exec('BEGIN IMMEDIATE');
    for (let i = 0; i < 4; i++) store.record(row());
    store.flush();
    await vi.waitFor(() => expect(logs.join('\n')).toMatch(/Cannot save usage rows yet .*4 kept in memory/), { timeout: 60_000 });
    other.exec('COMMIT');
    other.close();
    // The thread retries on its own, every second.
    await vi.waitFor(() => expect(count()).toBe(7), { timeout: 60_000 });
    await vi.waitFor(() => expect(logs.at(-1)).toContain('saved again'), { timeout: 60_000 });

    store.record(row());
    await store.close();
    expect(count()).toBe(8);
  });

  it('never saves a row twice when the writer thread dies after committing a batch but before reporting it', async () => {
    const { db, logs, store, count } = openThreaded();
    for (let i = 0; i < 3; i++) store.record(row());
    store.flush();
    expect(count()).toBe(3);
    // As if the thread had died between its commit and its report: the batch is still marked unconfirmed.
    const thread = (store as unknown as { thread: { worker: { terminate(): Promise<number> }; state: Int32Array; sent: number; unconfirmed: unknown[] } }).thread;
    thread.unconfirmed.push({ seq: thread.sent, rows: [[Date.now(), 'req_committed', null, 'chat', 'gpt-4o', 'openai', 'gpt-4o', 'balanced', 200, null, 0, 1, 1, 2, 0, 0, 0, 1, 1, '[]']], content: [] });
    Atomics.store(thread.state, 0, thread.sent - 1);
    await thread.worker.terminate();
    await vi.waitFor(() => expect(logs.join('\n')).toContain('usage rows are saved on the main thread from now on'), { timeout: 30_000 });
    store.record(row());
    store.flush();
    expect(count()).toBe(4);
    expect(db.prepare("SELECT count(*) FROM usage WHERE request_id = 'req_committed'").pluck().get()).toBe(0);
    await store.close();
  });

  it('saves every row on the main thread if the writer thread dies, including the batch it had been given', async () => {
    const { logs, store, count } = openThreaded();
    store.record(row());
    store.flush();
    expect(count()).toBe(1);
    const thread = (store as unknown as { thread: { worker: { terminate(): Promise<number> } } }).thread;
    // A batch handed over just as the thread dies is not lost.
    for (let i = 0; i < 3; i++) store.record(row());
    (store as unknown as { send(): void }).send();
    await thread.worker.terminate();
    await vi.waitFor(() => expect(logs.join('\n')).toContain('usage rows are saved on the main thread from now on'), { timeout: 30_000 });
    store.record(row());
    store.flush();
    expect(count()).toBe(5);
    await store.close();
  });

  it.runIf(process.platform === 'linux')('runs the writer thread at a lower CPU priority than request handling (nice 10)', async () => {
    const niceValues = () =>
      readdirSync('/proc/self/task').map((tid) => {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      });
    expect(niceValues()).not.toContain(10);
    const { db } = open();
    const store = new UsageStore(db, undefined, { writerThread: true });
    store.record(row());
    store.flush(); // the thread has started and committed: its priority is set
    expect(niceValues()).toContain(10);
    await store.close();
  });

  it('makes the database file private to the user', () => {
    const { dir } = open();
    expect(statSync(join(dir, 'patchbay.db')).mode & 0o777).toBe(0o600);
  });

  it('does not replay attempts the client cancelled as endpoint failures', async () => {
    const { db } = open();
    const store = new UsageStore(db);
    const cancelled = { provider: 'openai', model: 'gpt-4o', status: 502, error_type: 'cancelled', message: 'cancelled', latency_ms: 1 };
    for (let i = 0; i < 6; i++) store.record(row({ status: 499, errorType: 'client_closed', attempts: [cancelled] }));
    store.flush();
    const health = new HealthTracker({ failureThreshold: 5, cooldownMs: 30_000, windowSize: 100, windowMs: 60_000 });
    seedHealth(health, await new SqliteUsageReader(store).recentAttempts(Date.now() - 60_000));
    expect(health.health('openai/gpt-4o')).toMatchObject({ samples: 0, breaker: 'closed' });
  });
});

/**
 * Another connection writing to the database (the request thread's key and settings writes, a CLI
 * command, a second Patchbay) while the usage writer thread commits a batch. The writer used to start
 * its transaction as a read (the rollups' last id) and fail its first INSERT at once with "database
 * is locked" once the other write committed (its read snapshot was stale), so the rows waited a
 * second for the retry and a read that flushed first (the dashboard, `patchbay usage`) missed them.
 */
describe('usage rows committed while another connection writes', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('a flush waits for the other write and then sees every row recorded before it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'patchbay-writer-lock-'));
    dirs.push(dir);
    const db = openDatabase(dir);
    const logs: string[] = [];
    const store = new UsageStore(db, (m) => logs.push(m), { writerThread: true, flushWaitMs: 600_000 });
    store.record(row({ requestId: 'req_warm' }));
    store.flush();
    db.exec('CREATE TABLE IF NOT EXISTS other_writes (x INTEGER)');
    // The other connection takes the write lock, says so, holds it 40 ms, then commits.
    const other = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const Database = require(workerData.module);
       const db = new Database(workerData.path);
       db.exec('BEGIN IMMEDIATE');
       db.prepare('INSERT INTO other_writes (x) VALUES (1)').run();
       parentPort.postMessage('locked');
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 40);
       db.exec('COMMIT');
       db.close();
       parentPort.postMessage('committed');`,
      { eval: true, workerData: { module: require.resolve('better-sqlite3'), path: join(dir, 'patchbay.db') } },
    );
    const messages: string[] = [];
    const committed = new Promise<void>((resolve, reject) => {
      other.on('message', (m: string) => {
        messages.push(m);
        if (m === 'committed') resolve();
      });
      other.on('error', reject);
    });
    await new Promise<void>((resolve) => other.once('message', () => resolve()));
    store.record(row({ requestId: 'req_during_lock' }));
    store.flush();
    const ids = db.prepare('SELECT request_id FROM usage ORDER BY id').pluck().all();
    await committed;
    expect(messages).toEqual(['locked', 'committed']);
    expect(ids).toEqual(['req_warm', 'req_during_lock']);
    expect(logs.filter((m) => m.includes('Cannot save usage rows'))).toEqual([]);
    await store.close();
    db.close();
  });
});
