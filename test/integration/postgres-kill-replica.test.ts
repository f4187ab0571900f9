import OpenAI from 'openai';
import pg from 'pg';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USAGE_FLUSH_INTERVAL_MS } from '../../core/usage/usage-backend.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { createKeyWithCli, spawnServe, type ServeProcess } from '../helpers/spawn-serve.ts';
import { startPostgres, type TestPostgres } from '../helpers/start-postgres.ts';

const UPSTREAM_KEY = 'sk-test-kill-replica';
/** Event-loop, scheduling and INSERT round-trip delay allowed on top of the flush interval on a loaded 2-core machine. */
const SCHEDULING_SLACK_MS = 250;

/** Two `patchbay serve` processes on one PostgreSQL; one is killed with SIGKILL while both serve. */
describe('kill -9 of a replica under load on PostgreSQL', () => {
  const emulator = new OpenAiEmulator({ apiKey: UPSTREAM_KEY });
  let cluster: TestPostgres;
  let databaseUrl: string;
  let dir: string;
  const servers: ServeProcess[] = [];

  beforeAll(async () => {
    const upstream = await emulator.start();
    cluster = await startPostgres();
    databaseUrl = await cluster.createDatabase();
    dir = mkdtempSync(join(tmpdir(), 'patchbay-kill-'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ providers: { openai: { baseUrl: `${upstream}/v1` } } }));
  }, 120_000);
  afterAll(async () => {
    for (const server of servers) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await emulator.close();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const serve = async (name: string) => {
    const server = await spawnServe(['--config', join(dir, 'config.json'), '--database', databaseUrl], { PATCHBAY_HOME: join(dir, name), OPENAI_API_KEY: UPSTREAM_KEY });
    if (!('url' in server)) throw new Error(`replica ${name} did not start: ${server.stderr}`);
    servers.push(server);
    return server;
  };

  it(`loses no row of a request the killed replica answered more than the flush interval (${USAGE_FLUSH_INTERVAL_MS} ms) before`, async () => {
    const doomed = await serve('a');
    const survivor = await serve('b');
    // A team's replicas make no key: the admin makes the first with keys create (through the first replica).
    const key = await createKeyWithCli({ PATCHBAY_HOME: join(dir, 'a') });
    type Answer = { id: string; at: number };
    const received = new Map<ServeProcess, Answer[]>([[doomed, []], [survivor, []]]);
    let running = true;
    const worker = async (server: ServeProcess) => {
      const client = new OpenAI({ baseURL: server.url, apiKey: key, maxRetries: 0 });
      while (running) {
        try {
          const { response } = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'load' }], max_tokens: 5 }).withResponse();
          received.get(server)!.push({ id: response.headers.get('x-patchbay-request-id')!, at: performance.now() });
        } catch {
          if (server === doomed) return; // it is gone
          throw new Error('the surviving replica failed a request');
        }
      }
    };
    const workers = [...Array.from({ length: 6 }, () => worker(doomed)), ...Array.from({ length: 2 }, () => worker(survivor))];
    // Under load: until the replica to be killed has answered 60 requests (at most 15 s on a busy machine).
    const loading = performance.now();
    while (received.get(doomed)!.length < 60 && performance.now() - loading < 15_000) await new Promise((resolve) => setTimeout(resolve, 50));
    const killedAt = performance.now();
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    // The survivor keeps serving after the kill.
    await new Promise((resolve) => setTimeout(resolve, 500));
    running = false;
    await Promise.all(workers);

    const onDoomed = received.get(doomed)!;
    const onSurvivor = received.get(survivor)!;
    expect(onDoomed.length).toBeGreaterThan(20);
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    let stored: Set<string>;
    try {
      // The survivor's rows are written within its flush interval; give it a moment.
      for (let i = 0; ; i++) {
        const ids = [...onDoomed, ...onSurvivor].map((a) => a.id);
        stored = new Set((await db.query('SELECT request_id FROM usage WHERE request_id = ANY($1)', [ids])).rows.map((r) => r.request_id as string));
        if (onSurvivor.every((a) => stored.has(a.id)) || i > 100) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await db.end();
    }
    const mustSurvive = onDoomed.filter((a) => a.at < killedAt - USAGE_FLUSH_INTERVAL_MS - SCHEDULING_SLACK_MS);
    const lost = onDoomed.filter((a) => !stored.has(a.id));
    // Relative to the SIGKILL being sent (negative: received after it, before the process was gone).
    const lostAt = lost.map((a) => a.at - killedAt);
    const lostSpan = lost.length ? `${Math.min(...lostAt).toFixed(0)} to ${Math.max(...lostAt).toFixed(0)} ms` : '';
    console.log(
      `[kill-9] killed replica answered ${onDoomed.length} requests (${mustSurvive.length} more than ${USAGE_FLUSH_INTERVAL_MS + SCHEDULING_SLACK_MS} ms before the kill); ` +
        `${onDoomed.length - lost.length} rows in PostgreSQL, ${lost.length} lost${lost.length ? ` (answers received ${lostSpan} from the kill signal)` : ''}; ` +
        `the surviving replica answered ${onSurvivor.length}, all ${onSurvivor.filter((a) => stored.has(a.id)).length} stored`,
    );
    expect(mustSurvive.filter((a) => !stored.has(a.id))).toEqual([]);
    expect(onSurvivor.filter((a) => !stored.has(a.id))).toEqual([]);
  }, 120_000);
});
