import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../core/usage/open-database.ts';
import { UsageStore, type UsageRecord } from '../../core/usage/usage-store.ts';

const row = (requestId: string): UsageRecord => ({
  ts: Date.now(),
  requestId,
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
    store.record(row('req_warm'));
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
    store.record(row('req_during_lock'));
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
