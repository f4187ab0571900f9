import Database from 'better-sqlite3';
import OpenAI from 'openai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USAGE_FLUSH_INTERVAL_MS } from '../../core/usage/usage-store.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'patchbay.js');
const UPSTREAM_KEY = 'sk-test-crash-upstream';
/** Event-loop and scheduling delay allowed on top of the flush interval on a loaded 2-core machine. */
const SCHEDULING_SLACK_MS = 250;

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

  it(`loses no row of a request answered more than the flush interval (${USAGE_FLUSH_INTERVAL_MS} ms) before the kill`, async () => {
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
    const workers = Array.from({ length: 8 }, worker);
    await new Promise((r) => setTimeout(r, 1500));
    const killedAt = performance.now();
    child.kill('SIGKILL');
    running = false;
    await Promise.all(workers);
    await exited;

    const db = new Database(join(home, 'patchbay.db'), { readonly: true });
    const stored = new Set(db.prepare('SELECT request_id FROM usage').pluck().all() as string[]);
    db.close();
    const mustSurvive = answered.filter((a) => a.at < killedAt - USAGE_FLUSH_INTERVAL_MS - SCHEDULING_SLACK_MS);
    expect(answered.length).toBeGreaterThan(100);
    expect(mustSurvive.filter((a) => !stored.has(a.id))).toEqual([]);
    // And what can be lost is only the tail: the rows of the last moments.
    expect(answered.length - stored.size).toBeLessThan(answered.length / 4);
  });
});
