import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';
import { startPostgres, type TestPostgres } from '../helpers/start-postgres.ts';

const UPSTREAM_KEY = 'sk-test-round-trips';
const REQUESTS = 20;

/**
 * What the /v1 hot path asks PostgreSQL, statement by statement: every query any pg client of this
 * process sends is seen on its way out (pg.Client.prototype.query is observed, not replaced: each
 * call still goes to the real server). Work that is not per request is set apart by its statement:
 * the usage batches (one statement per 50 ms or 500 rows, whatever the number of requests in it)
 * and the replica heartbeat. Anything else that appears while requests run is a round trip the
 * hot path added, and fails the test with its SQL.
 */
describe('the /v1 hot path on PostgreSQL: database round trips per request', () => {
  const emulator = new OpenAiEmulator({ apiKey: UPSTREAM_KEY });
  let cluster: TestPostgres;
  let pb: TestPatchbay;
  let recording: string[] | null = null;
  const originalQuery = pg.Client.prototype.query;

  beforeAll(async () => {
    cluster = await startPostgres();
    const upstream = await emulator.start();
    pb = await startPatchbay({ config: { providers: { openai: { baseUrl: `${upstream}/v1` } } }, env: { OPENAI_API_KEY: UPSTREAM_KEY }, databaseUrl: await cluster.createDatabase() });
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      if (recording) {
        const first = args[0] as string | { text?: string };
        recording.push((typeof first === 'string' ? first : (first?.text ?? '')).replace(/\s+/g, ' ').trim());
      }
      return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof pg.Client.prototype.query;
  }, 120_000);
  afterAll(async () => {
    pg.Client.prototype.query = originalQuery;
    await pb?.stop();
    await emulator.close();
    await cluster?.stop();
  }, 60_000);

  const ask = (secret: string) =>
    new OpenAI({ baseURL: `${pb.patchbay.url}/v1`, apiKey: secret, maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'one two three' }], max_tokens: 10 });

  const BACKGROUND = [/^WITH ins AS \( ?INSERT INTO usage /, /^INSERT INTO replicas /, /^WITH dead AS \( ?DELETE FROM replicas /];
  const isReserve = (sql: string) => /^WITH b AS \( ?UPDATE key_budgets SET reserved_tokens/.test(sql);
  const isSettle = (sql: string) => /^WITH d AS \( ?DELETE FROM budget_reservations/.test(sql) && sql.includes('used_tokens = b.used_tokens');

  /**
   * The statements sent while `work` runs, until `done` holds for them (settlements are not awaited
   * by the request: they are waited for here, generously) and the usage rows are written; minus
   * the usage batches and the heartbeat.
   */
  async function perRequestStatements(work: () => Promise<void>, done: (statements: string[]) => boolean = () => true): Promise<string[]> {
    await pb.patchbay.stores.usage.flushAsync();
    const seen: string[] = [];
    recording = seen;
    try {
      await work();
      for (let i = 0; i < 2000 && !done(seen); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      await pb.patchbay.stores.usage.flushAsync();
    } finally {
      recording = null;
    }
    return seen.filter((sql) => !BACKGROUND.some((pattern) => pattern.test(sql)));
  }

  /**
   * Creates a key and waits until this replica has reloaded it from its own NOTIFY (asynchronous: on
   * a loaded machine that reload could otherwise land among the requests, and it is the key change's
   * work, not theirs).
   */
  async function createKey(settings: Parameters<typeof pb.patchbay.stores.keys.create>[0]) {
    let created!: Awaited<ReturnType<typeof pb.patchbay.stores.keys.create>>;
    await perRequestStatements(
      async () => {
        created = await pb.patchbay.stores.keys.create(settings);
      },
      (seen) => seen.some((sql) => /FROM api_keys WHERE id = \$1$/.test(sql)),
    );
    return created;
  }

  it('a key without caps or limits: no round trip at all (the key check is in memory, the row goes in a batch), as on SQLite', async () => {
    const { secret, record } = await createKey({ name: 'plain' });
    await ask(secret);
    const statements = await perRequestStatements(async () => {
      for (let i = 0; i < REQUESTS; i++) await ask(secret);
    });
    expect(statements).toEqual([]);
    // The rows were written all the same (in batches).
    const log = await pb.patchbay.management.usageLog({ key_id: record.id, limit: 100 });
    expect(log.data).toHaveLength(REQUESTS + 1);
  }, 60_000);

  it('a key with a monthly cap: one reservation before the upstream call and one settlement after, per request', async () => {
    const { secret } = await createKey({ name: 'capped', monthlyTokenCap: 1_000_000 });
    // The first request of a month also creates the key's budget row (once per key and month): not counted.
    const settledOnce = (statements: string[]) => statements.filter(isSettle).length >= 1;
    await perRequestStatements(() => ask(secret).then(() => undefined), settledOnce);
    const statements = await perRequestStatements(
      async () => {
        for (let i = 0; i < REQUESTS; i++) await ask(secret);
      },
      (seen) => seen.filter(isSettle).length >= REQUESTS,
    );
    expect({ reserve: statements.filter(isReserve).length, settle: statements.filter(isSettle).length, other: statements.filter((sql) => !isReserve(sql) && !isSettle(sql)) }).toEqual({
      reserve: REQUESTS,
      settle: REQUESTS,
      other: [],
    });
  }, 60_000);
});
