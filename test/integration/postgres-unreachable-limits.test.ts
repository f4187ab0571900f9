import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../core/config/load-config.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';
import { startPostgres, type TestPostgres } from '../helpers/start-postgres.ts';

const UPSTREAM_KEY = 'sk-test-unreachable';

/** While PostgreSQL is away: caps fail closed or open as `keys.capsWhenDatabaseUnreachable` says; rate limits fall back to each replica's window. */
describe('caps and rate limits while PostgreSQL is unreachable', () => {
  const emulator = new OpenAiEmulator({ apiKey: UPSTREAM_KEY });
  let cluster: TestPostgres;
  let closed: TestPatchbay;
  let open: TestPatchbay;
  let databaseUrl: string;

  beforeAll(async () => {
    cluster = await startPostgres();
    databaseUrl = await cluster.createDatabase();
    const upstream = await emulator.start();
    const providers = { openai: { baseUrl: `${upstream}/v1` } };
    const env = { OPENAI_API_KEY: UPSTREAM_KEY };
    closed = await startPatchbay({ config: { providers }, env, databaseUrl });
    open = await startPatchbay({ config: { providers, keys: { capsWhenDatabaseUnreachable: 'open' } }, env, databaseUrl });
  }, 120_000);
  afterAll(async () => {
    await Promise.all([closed, open].filter(Boolean).map((r) => r.stop()));
    await emulator.close();
    await cluster?.stop();
  }, 60_000);

  const clientOn = (replica: TestPatchbay, secret: string) => new OpenAI({ baseURL: `${replica.patchbay.url}/v1`, apiKey: secret, maxRetries: 0 });
  const ask = (client: OpenAI) => client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], max_tokens: 5 });
  const known = async (secret: string) => {
    for (const replica of [closed, open]) {
      for (let i = 0; replica.patchbay.stores.keys.check(secret).ok !== true; i++) {
        if (i > 1_000) throw new Error('the key never reached a replica');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  };

  it('the setting is validated: anything but "closed" or "open" names the field', () => {
    expect(parseConfig({}, null).capsWhenDatabaseUnreachable).toBe('closed');
    expect(parseConfig({ keys: { capsWhenDatabaseUnreachable: 'open' } }, null).capsWhenDatabaseUnreachable).toBe('open');
    expect(() => parseConfig({ keys: { capsWhenDatabaseUnreachable: 'sometimes' } }, 'config.json')).toThrow(ConfigError);
    expect(() => parseConfig({ keys: { capsWhenDatabaseUnreachable: 'sometimes' } }, 'config.json')).toThrow(/keys\.capsWhenDatabaseUnreachable/);
  });

  it('database stopped: a capped key gets 503 on the default (closed) replica and is served on the "open" one; keys without caps are served by both; rpm holds per replica', async () => {
    const capped = await closed.patchbay.management.createKey({ name: 'capped', monthly_token_cap: 1_000_000 });
    const plain = await closed.patchbay.management.createKey({ name: 'plain' });
    const limited = await closed.patchbay.management.createKey({ name: 'limited', rpm_limit: 3 });
    await known(capped.secret);
    await known(plain.secret);
    await known(limited.secret);
    // Reachable: both replicas check the cap in the database.
    await expect(ask(clientOn(closed, capped.secret))).resolves.toBeTruthy();
    await expect(ask(clientOn(open, capped.secret))).resolves.toBeTruthy();
    await cluster.stopServer();
    try {
      await expect(ask(clientOn(closed, capped.secret))).rejects.toMatchObject({ status: 503, code: 'cap_unavailable' });
      await expect(ask(clientOn(open, capped.secret))).resolves.toBeTruthy();
      await expect(ask(clientOn(closed, plain.secret))).resolves.toBeTruthy();
      await expect(ask(clientOn(open, plain.secret))).resolves.toBeTruthy();
      // The shared windows cannot be asked: each replica holds rpm_limit in its own window meanwhile.
      const results = await Promise.allSettled(Array.from({ length: 6 }, () => ask(clientOn(open, limited.secret))));
      expect(results.filter((r) => r.status === 'fulfilled').length).toBe(3);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    } finally {
      await cluster.startServer();
    }
    expect(open.patchbay.stores.backend).toBe('postgres');
    expect(open.logs.some((line) => line.includes('capped keys are admitted without their cap check meanwhile (keys.capsWhenDatabaseUnreachable is "open")'))).toBe(true);
    expect(closed.logs.some((line) => line.includes('capped keys are refused with 503 cap_unavailable meanwhile'))).toBe(true);
    // Back: the capped key is checked in the database again on both.
    for (let i = 0; ; i++) {
      const answer = await ask(clientOn(closed, capped.secret)).catch((error: unknown) => error);
      if (!(answer instanceof Error)) break;
      if (i > 100) throw answer;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(closed.logs.some((line) => line.includes('The database is reachable again'))).toBe(true);
    // What the "open" replica served unchecked still counts against the cap: the budget equals the usage rows.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      let budget: { used: number; rows: number } | undefined;
      for (let i = 0; i < 100; i++) {
        await Promise.all([closed, open].map((r) => r.patchbay.stores.usage.flushAsync()));
        budget = (
          await db.query(
            'SELECT b.used_tokens::int AS used, (SELECT sum(total_tokens)::int FROM usage u WHERE u.key_id = b.key_id) AS rows FROM key_budgets b WHERE b.key_id = $1 AND b.reserved_tokens = 0',
            [capped.key.id],
          )
        ).rows[0];
        if (budget && budget.used === budget.rows) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(budget!.rows).toBeGreaterThan(0);
      expect(budget!.used).toBe(budget!.rows);
    } finally {
      await db.end();
    }
  }, 120_000);
});
