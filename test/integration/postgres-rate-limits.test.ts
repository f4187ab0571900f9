import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';
import { startPostgres, type TestPostgres } from '../helpers/start-postgres.ts';

const UPSTREAM_KEY = 'sk-test-rate-limits';

/** Three replicas on one PostgreSQL: a key's rpm_limit / tpm_limit hold across all of them, not per replica. */
describe('rate limits shared by replicas on one PostgreSQL', () => {
  const emulator = new OpenAiEmulator({ apiKey: UPSTREAM_KEY });
  let cluster: TestPostgres;
  let databaseUrl: string;
  let db: pg.Client;
  const replicas: TestPatchbay[] = [];

  beforeAll(async () => {
    cluster = await startPostgres();
    databaseUrl = await cluster.createDatabase();
    const upstream = await emulator.start();
    replicas.push(
      ...(await Promise.all([0, 1, 2].map(() => startPatchbay({ config: { providers: { openai: { baseUrl: `${upstream}/v1` } } }, env: { OPENAI_API_KEY: UPSTREAM_KEY }, databaseUrl })))),
    );
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await Promise.all(replicas.map((r) => r.stop()));
    await emulator.close();
    await cluster?.stop();
  }, 60_000);

  const clientOn = (replica: TestPatchbay, secret: string) => new OpenAI({ baseURL: `${replica.patchbay.url}/v1`, apiKey: secret, maxRetries: 0 });
  const ask = (client: OpenAI, maxTokens = 10) =>
    client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'one two three' }], max_tokens: maxTokens }).withResponse();
  const known = async (secret: string) => {
    for (const replica of replicas) {
      for (let i = 0; replica.patchbay.stores.keys.check(secret).ok !== true; i++) {
        if (i > 1_000) throw new Error('the key never reached a replica');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  };
  const spread = async (secret: string, count: number, maxTokens = 10) => {
    const clients = replicas.map((r) => clientOn(r, secret));
    const results = await Promise.allSettled(Array.from({ length: count }, (_, i) => ask(clients[i % 3], maxTokens)));
    const answered = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof ask>>>).value);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as InstanceType<typeof OpenAI.APIError>);
    return { answered, refused };
  };

  it('120 concurrent requests on a key limited to 30 per minute, spread over 3 replicas: 30 answered, the rest 429 with Retry-After', async () => {
    const rpm = 30;
    const { secret } = await replicas[0].patchbay.management.createKey({ name: 'rpm-shared', rpm_limit: rpm });
    await known(secret);
    const { answered, refused } = await spread(secret, 120);
    for (const error of refused) {
      expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
      expect(Number(error.headers?.get('retry-after'))).toBeGreaterThan(0);
      expect(error.headers?.get('x-ratelimit-limit-requests')).toBe(String(rpm));
    }
    // Before: each replica kept its own window, so the three admitted up to 3 x 30 between them.
    expect(answered.length).toBeLessThanOrEqual(rpm);
    expect(answered.length).toBe(rpm);
    const remaining = answered.map((a) => Number(a.response.headers.get('x-ratelimit-remaining-requests'))).sort((a, b) => a - b);
    expect(remaining[0]).toBe(0);
    // The same minute, another wave through every replica: nothing left.
    const again = await spread(secret, 15);
    expect(again.answered.length).toBe(0);
    console.log(`[rate-limits] rpm ${rpm}, 120 concurrent over 3 replicas: ${answered.length} answered, ${refused.length} refused; a second wave of 15 in the same minute: ${again.answered.length} answered`);
  }, 120_000);

  it('tokens per minute are shared too: the tokens answered stay within tpm_limit across the replicas', async () => {
    const tpm = 600;
    const { secret, key } = await replicas[1].patchbay.management.createKey({ name: 'tpm-shared', tpm_limit: tpm });
    await known(secret);
    const { answered, refused } = await spread(secret, 90, 20);
    expect(refused.length).toBeGreaterThan(0);
    for (const error of refused) expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    const spent = answered.reduce((sum, a) => sum + a.data.usage!.total_tokens, 0);
    expect(spent).toBeLessThanOrEqual(tpm);
    // Each admission reserved its estimate; each settlement left what it really used in the window.
    for (let i = 0; i < 100; i++) {
      const { rows } = await db.query('SELECT coalesce(sum(tokens), 0)::int AS tokens FROM key_rate_buckets WHERE key_id = $1', [key.id]);
      if (rows[0].tokens === spent) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const { rows } = await db.query('SELECT coalesce(sum(tokens), 0)::int AS tokens, coalesce(sum(requests), 0)::int AS requests FROM key_rate_buckets WHERE key_id = $1', [key.id]);
    expect(rows[0]).toEqual({ tokens: spent, requests: answered.length });
    console.log(`[rate-limits] tpm ${tpm}, 90 concurrent (max_tokens 20) over 3 replicas: ${answered.length} answered using ${spent} tokens, ${refused.length} refused`);
  }, 120_000);

  it('a key with a cap and an rpm limit: the requests the limit refuses give their cap reservation back', async () => {
    const rpm = 5;
    const { secret, key } = await replicas[2].patchbay.management.createKey({ name: 'cap-and-rpm', rpm_limit: rpm, monthly_token_cap: 1_000_000 });
    await known(secret);
    const { answered, refused } = await spread(secret, 15);
    expect(answered.length).toBe(rpm);
    for (const error of refused) expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    const spent = answered.reduce((sum, a) => sum + a.data.usage!.total_tokens, 0);
    let budget: { used: number; reserved: number } | undefined;
    for (let i = 0; i < 100; i++) {
      budget = (await db.query('SELECT used_tokens::int AS used, reserved_tokens::int AS reserved FROM key_budgets WHERE key_id = $1', [key.id])).rows[0];
      if (budget?.reserved === 0 && budget.used === spent) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(budget).toEqual({ used: spent, reserved: 0 });
    expect((await db.query('SELECT count(*)::int AS n FROM budget_reservations WHERE key_id = $1', [key.id])).rows[0].n).toBe(0);
  }, 60_000);

  it('a key without limits or caps never touches the rate windows (no database round trip on its hot path)', async () => {
    const { secret, key } = await replicas[2].patchbay.management.createKey({ name: 'unlimited' });
    await known(secret);
    const { answered } = await spread(secret, 30);
    expect(answered.length).toBe(30);
    expect(answered[0].response.headers.get('x-ratelimit-limit-requests')).toBeNull();
    const { rows } = await db.query('SELECT count(*)::int AS n FROM key_rate_buckets WHERE key_id = $1', [key.id]);
    expect(rows[0].n).toBe(0);
  }, 60_000);

  it('one shared-window admission is one round trip (its time measured and printed, not asserted)', async () => {
    const created = await replicas[0].patchbay.management.createKey({ name: 'rpm-timed', rpm_limit: 1_000_000, tpm_limit: 1_000_000_000 });
    const key = (await replicas[0].patchbay.stores.keys.get(created.key.id))!;
    const rates = replicas[0].patchbay.stores.rates!;
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const started = performance.now();
      const result = await rates.admit(key, 20);
      times.push(performance.now() - started);
      expect(result.admitted).toBe(true);
    }
    times.sort((a, b) => a - b);
    const { rows } = await db.query('SELECT sum(requests)::int AS requests, sum(tokens)::int AS tokens FROM key_rate_buckets WHERE key_id = $1', [key.id]);
    expect(rows[0]).toEqual({ requests: 200, tokens: 4_000 });
    console.log(`[rate-limits] patchbay_rate_admit, 200 sequential calls from one replica: p50 ${times[100].toFixed(2)} ms, p90 ${times[180].toFixed(2)} ms (load average ${(await import('node:os')).loadavg()[0].toFixed(1)})`);
  }, 60_000);

  it('sustained load for 62 s through all replicas: no 60 s span holds more than rpm_limit answered requests (measured)', async () => {
    const rpm = 20;
    const { secret, key } = await replicas[0].patchbay.management.createKey({ name: 'rpm-sustained', rpm_limit: rpm });
    await known(secret);
    const started = Date.now();
    let refused = 0;
    const worker = async (replica: TestPatchbay) => {
      const client = clientOn(replica, secret);
      while (Date.now() - started < 62_000) {
        try {
          await ask(client);
        } catch (error) {
          expect(error).toMatchObject({ status: 429 });
          refused++;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    await Promise.all(replicas.map(worker));
    await Promise.all(replicas.map((r) => r.patchbay.stores.usage.flushAsync()));
    const { rows } = await db.query('SELECT ts::float8 AS ts FROM usage WHERE key_id = $1 AND status = 200 ORDER BY ts', [key.id]);
    const times = rows.map((r) => r.ts as number);
    // The most answered requests whose start times lie within `span` ms of each other.
    const busiest = (span: number) => {
      let most = 0;
      for (let i = 0, j = 0; i < times.length; i++) {
        while (times[i] - times[j] >= span) j++;
        most = Math.max(most, i - j + 1);
      }
      return most;
    };
    // A row's ts is when its request arrived, a few ms before admission: 1 s allowed for that.
    expect(busiest(59_000)).toBeLessThanOrEqual(rpm);
    expect(times.length).toBeGreaterThan(rpm);
    console.log(`[rate-limits] rpm ${rpm}, 3 workers (one per replica) for 62 s: ${times.length} answered, ${refused} refused; most answered in any 60 s span ${busiest(60_000)}, in any 59 s span ${busiest(59_000)}`);
  }, 120_000);
});
