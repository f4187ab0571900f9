import Database from 'better-sqlite3';
import OpenAI from 'openai';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';
import { startPostgres, type TestPostgres } from '../helpers/start-postgres.ts';

const UPSTREAM_KEY = 'sk-test-overshoot';
const CAP = 3_000;
const RPM = 30;

/**
 * What PostgreSQL prevents: the same key (same hash, cap and limit) on three replicas, each with its
 * own data dir and SQLite, against three replicas on one PostgreSQL. The same 300 concurrent
 * requests on the capped key and 120 on the rate-limited one, spread over the replicas.
 */
describe('one capped key on 3 replicas: SQLite per replica overshoots, one PostgreSQL does not', () => {
  const emulator = new OpenAiEmulator({ apiKey: UPSTREAM_KEY });
  let cluster: TestPostgres;
  let upstream: string;
  const running: TestPatchbay[] = [];
  const figures: string[] = [];

  beforeAll(async () => {
    upstream = await emulator.start();
    cluster = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await Promise.all(running.map((r) => r.stop()));
    await emulator.close();
    await cluster?.stop();
    console.log(`[overshoot] ${figures.join('\n[overshoot] ')}`);
  }, 60_000);

  const start = (databaseUrl?: string) => startPatchbay({ config: { providers: { openai: { baseUrl: `${upstream}/v1` } } }, env: { OPENAI_API_KEY: UPSTREAM_KEY }, databaseUrl });
  const ask = (client: OpenAI) => client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'one two three' }], max_tokens: 10 });

  /** The key made on replica 0 and, for SQLite, its row copied into the other replicas' files (same hash, same cap). */
  const shareKey = async (replicas: TestPatchbay[], settings: { monthly_token_cap?: number; rpm_limit?: number }, name: string) => {
    const { secret, key } = await replicas[0].patchbay.management.createKey({ name, ...settings });
    if (replicas[0].patchbay.stores.backend === 'sqlite') {
      const row = replicas[0].patchbay.db.prepare('SELECT * FROM api_keys WHERE id = ?').get(key.id) as Record<string, unknown>;
      for (const replica of replicas.slice(1)) {
        // Another connection, as an operator's copy would be: the replica notices the change.
        const file = new Database(join(replica.dataDir, 'patchbay.db'));
        const columns = Object.keys(row);
        file.prepare(`INSERT INTO api_keys (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`).run(row);
        file.close();
      }
    }
    for (const replica of replicas) {
      for (let i = 0; replica.patchbay.stores.keys.check(secret).ok !== true; i++) {
        if (i > 2_000) throw new Error('the key never reached a replica');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
    return secret;
  };

  const hammer = async (replicas: TestPatchbay[], secret: string, count: number) => {
    const clients = replicas.map((r) => new OpenAI({ baseURL: `${r.patchbay.url}/v1`, apiKey: secret, maxRetries: 0 }));
    const results = await Promise.allSettled(Array.from({ length: count }, (_, i) => ask(clients[i % replicas.length])));
    const answered = results.filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<OpenAI.ChatCompletion>[];
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ status: 429 });
    return { answered: answered.length, refused: count - answered.length, spent: answered.reduce((sum, r) => sum + r.value.usage!.total_tokens, 0) };
  };

  const compare = async (label: string, replicas: TestPatchbay[]) => {
    const capped = await shareKey(replicas, { monthly_token_cap: CAP }, `cap-${label}`);
    const cap = await hammer(replicas, capped, 300);
    const limited = await shareKey(replicas, { rpm_limit: RPM }, `rpm-${label}`);
    const rate = await hammer(replicas, limited, 120);
    figures.push(
      `${label}: cap ${CAP} tokens, 300 concurrent: ${cap.answered} answered, ${cap.refused} refused, ${cap.spent} tokens spent, overshoot ${Math.max(0, cap.spent - CAP)}; ` +
        `rpm ${RPM}, 120 concurrent: ${rate.answered} answered (overshoot ${Math.max(0, rate.answered - RPM)})`,
    );
    return { cap, rate };
  };

  it('SQLite per replica: each replica holds the cap and the limit on its own, so the three together spend past them', async () => {
    const replicas = await Promise.all([0, 1, 2].map(() => start()));
    running.push(...replicas);
    const { cap, rate } = await compare('SQLite per replica', replicas);
    expect(cap.spent).toBeGreaterThan(CAP);
    expect(rate.answered).toBeGreaterThan(RPM);
  }, 180_000);

  it('one PostgreSQL: the same requests spend at most the cap and get at most the limit', async () => {
    const databaseUrl = await cluster.createDatabase();
    const replicas = await Promise.all([0, 1, 2].map(() => start(databaseUrl)));
    running.push(...replicas);
    const { cap, rate } = await compare('PostgreSQL', replicas);
    expect(cap.spent).toBeLessThanOrEqual(CAP);
    expect(cap.refused).toBeGreaterThan(0);
    expect(rate.answered).toBe(RPM);
  }, 180_000);
});
