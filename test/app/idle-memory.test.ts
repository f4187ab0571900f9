import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';
import type { IdleMemoryStats } from '../../core/runtime/idle-memory.ts';

const UPSTREAM_KEY = 'sk-test-idle-memory';
/** The quiet time in this test (production: 10 s). Every wait below is several of these. */
const QUIET_MS = 500;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A tray app is mostly idle: when routed requests stop, Patchbay gives the memory its heap grew to
 * back at once (one memory-reducing collection, and the usage writer thread's), instead of ~100 s
 * later. Seen through GET /api/status's `idle_memory` counter, on the real server over HTTP.
 */
describe('idle memory release', () => {
  const emulator = new OpenAiEmulator({ apiKey: UPSTREAM_KEY });
  let pb: TestPatchbay;
  const idle = async (): Promise<IdleMemoryStats> => {
    const response = await fetch(`${pb.patchbay.url}/api/status`, { headers: { authorization: `Bearer ${pb.patchbay.adminToken}` } });
    expect(response.status).toBe(200);
    return ((await response.json()) as { idle_memory: IdleMemoryStats }).idle_memory;
  };
  const chat = () => pb.client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
  /** Polls the status (which is no routed request: it never arms the release) until `done`. */
  const waitFor = async (done: (stats: IdleMemoryStats) => boolean, what: string): Promise<IdleMemoryStats> => {
    for (let i = 0; i < 300; i++) {
      const stats = await idle();
      if (done(stats)) return stats;
      await sleep(100);
    }
    throw new Error(`timed out waiting until ${what}`);
  };

  beforeAll(async () => {
    const upstream = await emulator.start();
    pb = await startPatchbay({ config: { providers: { openai: { baseUrl: `${upstream}/v1` } } }, env: { OPENAI_API_KEY: UPSTREAM_KEY }, idleCollectAfterMs: QUIET_MS });
  });
  afterAll(async () => {
    await pb?.stop();
    await emulator.close();
  });

  it('runs once after routed requests stop: not before any, not again while idle (the dashboard polling the status included)', async () => {
    // Started, never used: nothing to give back, and no timer wakes the app.
    for (let i = 0; i < 6; i++) {
      await sleep(QUIET_MS / 2);
      expect((await idle()).collections).toBe(0);
    }
    await chat();
    await chat();
    const first = await waitFor((stats) => stats.collections === 1, 'the first idle release');
    expect(first.last_pause_ms).toBeGreaterThan(0);
    // Idle for six quiet periods more, the status polled all along: it stays at one.
    for (let i = 0; i < 12; i++) {
      await sleep(QUIET_MS / 2);
      expect((await idle()).collections).toBe(1);
    }
    const settled = await idle();
    console.log(`idle release: pause ${settled.last_pause_ms} ms, RSS ${settled.last_rss_before_mb} -> ${settled.last_rss_after_mb} MB (the test process: vitest and Patchbay)`);
    expect(settled.last_rss_after_mb).toBeGreaterThan(0);
    expect(pb.logs.filter((line) => /idle memory/i.test(line))).toEqual([]);
  });

  it('never runs while requests flow or a stream is in flight; runs again once they have stopped', async () => {
    const before = (await idle()).collections;
    // Requests back to back for four quiet periods: no quiet period passes without one finishing.
    const until = performance.now() + 4 * QUIET_MS;
    while (performance.now() < until) await chat();
    // A stream held open upstream after its first event, for four quiet periods: in flight, no release.
    let release!: () => void;
    emulator.inject({ path: '/chat/completions', hold: { afterEvents: 1, until: new Promise<void>((resolve) => (release = resolve)) } });
    const stream = await pb.client.chat.completions.create({ model: 'openai/gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'tell me more' }] });
    const chunks = stream[Symbol.asyncIterator]();
    expect((await chunks.next()).done).toBe(false);
    for (let i = 0; i < 8; i++) {
      await sleep(QUIET_MS / 2);
      expect((await idle()).collections).toBe(before);
    }
    release();
    let text = '';
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) text += next.value.choices[0]?.delta?.content ?? '';
    expect(text.length).toBeGreaterThan(0);
    // The stream ended: one quiet period later, one release.
    await waitFor((stats) => stats.collections === before + 1, 'the release after the stream');
    await sleep(3 * QUIET_MS);
    expect((await idle()).collections).toBe(before + 1);
    // The usage writer thread released its memory too and still commits: one row per routed request.
    await chat();
    const rows = usageRows(pb.patchbay);
    expect(rows.length).toBe(emulator.count('/chat/completions'));
    expect(pb.logs.filter((line) => /writer thread stopped|idle memory/i.test(line))).toEqual([]);
  });
});
