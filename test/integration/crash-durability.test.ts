import Database from 'better-sqlite3';
import OpenAI from 'openai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USAGE_FLUSH_INTERVAL_MS } from '../../core/usage/usage-backend.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'patchbay.js');
const UPSTREAM_KEY = 'sk-test-crash-upstream';
/** Requests in flight at once: the most by which the order rows are written can differ from the order answers arrive. */
const WORKERS = 8;

describe('usage rows survive kill -9', () => {
  const emulator = new OpenAiEmulator({ apiKey: UPSTREAM_KEY });
  let home: string;

  beforeAll(async () => {
    const upstream = await emulator.start();
    home = mkdtempSync(join(tmpdir(), 'patchbay-crash-'));
    writeFileSync(join(home, 'config.json'), JSON.stringify({ providers: { openai: { baseUrl: `${upstream}/v1` } } }));
  });
  afterAll(async () => {
    await emulator.close();
    rmSync(home, { recursive: true, force: true });
  });

  it(`loses only the newest rows (written every ${USAGE_FLUSH_INTERVAL_MS} ms), never one in the middle, and keeps every row already written`, async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env: { PATH: process.env.PATH, PATCHBAY_HOME: home, OPENAI_API_KEY: UPSTREAM_KEY } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const url = await new Promise<string>((resolve) => child.stdout.on('data', (d) => {
      const match = /listening on (\S+)/.exec(String(d));
      if (match) resolve(match[1]);
    }));
    const key = /^\s+(pb-\S+)$/m.exec(stderr)![1];
    const client = new OpenAI({ baseURL: url, apiKey: key, maxRetries: 0 });
    const answered: { id: string; at: number }[] = [];
    let running = true;
    const worker = async () => {
      while (running) {
        try {
          const { response } = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'load' }] }).withResponse();
          answered.push({ id: response.headers.get('x-patchbay-request-id')!, at: performance.now() });
        } catch {
          return; // the server is gone
        }
      }
    };
    const workers = Array.from({ length: WORKERS }, worker);
    // Under load until the database holds 100 rows (read as another process would, while it writes).
    const written = () => {
      const db = new Database(join(home, 'patchbay.db'), { readonly: true });
      try {
        return db.prepare('SELECT count(*) FROM usage').pluck().get() as number;
      } finally {
        db.close();
      }
    };
    let seen = 0;
    for (let i = 0; i < 6000 && seen < 100; i++) {
      await new Promise((r) => setTimeout(r, 10));
      seen = written();
    }
    expect(seen).toBeGreaterThanOrEqual(100);
    const killedAt = performance.now();
    child.kill('SIGKILL');
    running = false;
    await Promise.all(workers);
    await exited;

    const db = new Database(join(home, 'patchbay.db'), { readonly: true });
    const stored = new Set(db.prepare('SELECT request_id FROM usage').pluck().all() as string[]);
    db.close();
    // Every row written before the kill is still there.
    expect(stored.size).toBeGreaterThanOrEqual(seen);
    // What is lost is the tail: past the first answer without a row, at most the rows of requests
    // that were in flight beside it (their rows may be written in another order).
    const firstLost = answered.findIndex((a) => !stored.has(a.id));
    const storedAfterLoss = firstLost < 0 ? 0 : answered.slice(firstLost).filter((a) => stored.has(a.id)).length;
    expect(storedAfterLoss).toBeLessThanOrEqual(WORKERS);
    // How far back the loss went is a figure (scheduling on a shared machine decides it), printed, not asserted.
    const lostAgo = firstLost < 0 ? 0 : Math.round(killedAt - answered[firstLost].at);
    console.log(`[crash-durability] ${answered.length} answered, ${stored.size} rows kept; the oldest lost row was answered ${lostAgo} ms before the kill (negative: after it; flush interval ${USAGE_FLUSH_INTERVAL_MS} ms)`);
  });
});
