import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PostgresBudgetLedger } from '../../core/postgres/postgres-budget-ledger.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';
import { startPostgres, type TestPostgres } from '../helpers/start-postgres.ts';

const UPSTREAM_KEY = 'sk-test-replicas';

/** Three Patchbay replicas on one PostgreSQL, the OpenAI emulator upstream: what a team's gateway looks like. */
describe('replicas on one PostgreSQL agree on keys and caps', () => {
  const emulator = new OpenAiEmulator({ apiKey: UPSTREAM_KEY });
  let cluster: TestPostgres;
  let databaseUrl: string;
  const replicas: TestPatchbay[] = [];

  beforeAll(async () => {
    cluster = await startPostgres();
    databaseUrl = await cluster.createDatabase();
    const upstream = await emulator.start();
    // Started together: the migrations run once, under the advisory lock.
    replicas.push(
      ...(await Promise.all(
        [0, 1, 2].map(() => startPatchbay({ config: { providers: { openai: { baseUrl: `${upstream}/v1` } } }, env: { OPENAI_API_KEY: UPSTREAM_KEY }, databaseUrl })),
      )),
    );
  }, 120_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await emulator.close();
    await cluster?.stop();
  }, 60_000);

  const clientOn = (replica: TestPatchbay, secret: string) => new OpenAI({ baseURL: `${replica.patchbay.url}/v1`, apiKey: secret, maxRetries: 0 });
  const ask = (client: OpenAI, maxTokens = 10) => client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'one two three' }], max_tokens: maxTokens });

  /** Polls (without I/O: the cached check) until the replica's answer for the secret changes; returns the ms it took. */
  const untilChecked = async (replica: TestPatchbay, secret: string, ok: boolean): Promise<number> => {
    const started = performance.now();
    while (replica.patchbay.stores.keys.check(secret).ok !== ok) {
      if (performance.now() - started > 10_000) throw new Error('the change never reached this replica');
      await new Promise((resolve) => setImmediate(resolve));
    }
    return performance.now() - started;
  };

  it('shares one first key and one schema: the replicas started together created one default key', async () => {
    const keys = await replicas[0].patchbay.stores.keys.list();
    expect(keys.filter((k) => k.name === 'default').length).toBeLessThanOrEqual(1);
    for (const replica of replicas) expect((await replica.patchbay.stores.keys.count())).toBe(keys.length);
  });

  it('a key created on replica A answers on B and C; revoked on A, B and C refuse it (LISTEN/NOTIFY window measured)', async () => {
    const { secret, key } = await replicas[0].patchbay.management.createKey({ name: 'shared' });
    const created = await Promise.all([untilChecked(replicas[1], secret, true), untilChecked(replicas[2], secret, true)]);
    await expect(ask(clientOn(replicas[1], secret))).resolves.toBeTruthy();
    await replicas[0].patchbay.management.revokeKey(key.id);
    // Measured from the moment the revocation is acknowledged on A (A's own map is updated before that).
    const revoked = await Promise.all([untilChecked(replicas[1], secret, false), untilChecked(replicas[2], secret, false)]);
    await expect(ask(clientOn(replicas[0], secret))).rejects.toMatchObject({ status: 401 });
    await expect(ask(clientOn(replicas[2], secret))).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
    console.log(`[replicas] key created -> usable on the others after ${created.map((ms) => ms.toFixed(1)).join(' / ')} ms; revoked -> refused after ${revoked.map((ms) => ms.toFixed(1)).join(' / ')} ms`);
  }, 60_000);

  it("a replica whose key-change connection was cut catches up on reconnecting: a key revoked meanwhile is refused there too", async () => {
    const [a, b] = replicas;
    const { secret, key } = await a.patchbay.management.createKey({ name: 'revoked while B was away' });
    await untilChecked(b, secret, true);
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      // Only B's key listener: its application_name carries the replica's name.
      const cut = await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [`patchbay keys ${b.patchbay.stores.postgres!.replica}`]);
      expect(cut.rowCount).toBe(1);
    } finally {
      await admin.end();
    }
    await a.patchbay.management.revokeKey(key.id);
    const caughtUp = await untilChecked(b, secret, false);
    await expect(ask(clientOn(b, secret))).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(b.logs.some((line) => line.includes('Lost the key-change connection to PostgreSQL'))).toBe(true);
    await vi.waitFor(() => expect(b.logs.some((line) => line.includes('key-change connection to PostgreSQL is back; keys reloaded'))).toBe(true), { timeout: 60_000 });
    console.log(`[replicas] key listener cut, key revoked on A -> refused on B after ${caughtUp.toFixed(1)} ms`);
  }, 60_000);

  it('300 concurrent requests on one capped key, spread over the 3 replicas, spend at most the cap', async () => {
    const cap = 3_000;
    const { secret, key } = await replicas[1].patchbay.management.createKey({ name: 'team-cap', monthly_token_cap: cap });
    await Promise.all(replicas.map((r) => untilChecked(r, secret, true)));
    const clients = replicas.map((r) => clientOn(r, secret));
    const results = await Promise.allSettled(Array.from({ length: 300 }, (_, i) => ask(clients[i % 3])));
    const answered = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(answered.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(r.reason).toMatchObject({ status: 429, code: 'insufficient_quota' });
    const spent = answered.reduce((sum, r) => sum + (r as PromiseFulfilledResult<OpenAI.ChatCompletion>).value.usage!.total_tokens, 0);
    // With max_tokens every estimate is an upper bound: nothing in flight can pass the cap.
    expect(spent).toBeLessThanOrEqual(cap);
    // The rows of every replica are in the one database; no reservation is left once all settled.
    await Promise.all(replicas.map((r) => r.patchbay.stores.usage.flushAsync()));
    const totals = await replicas[2].patchbay.stores.reader.keyTotalsSince(key.id, 0);
    expect(totals.tokens).toBe(spent);
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      for (let i = 0; i < 100; i++) {
        const budget = (await db.query('SELECT used_tokens::int AS used, reserved_tokens::int AS reserved FROM key_budgets WHERE key_id = $1', [key.id])).rows[0];
        if (budget.reserved === 0 && budget.used === spent) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect((await db.query('SELECT used_tokens::int AS used, reserved_tokens::int AS reserved FROM key_budgets WHERE key_id = $1', [key.id])).rows[0]).toEqual({ used: spent, reserved: 0 });
    } finally {
      await db.end();
    }
    console.log(`[replicas] cap ${cap} tokens: ${answered.length} answered, ${refused.length} refused with 429, spent ${spent} (overshoot ${Math.max(0, spent - cap)})`);
  }, 120_000);

  it("a dead replica's reservations are given back, so its crash leaves no false 429", async () => {
    const { key } = await replicas[0].patchbay.management.createKey({ name: 'crash', monthly_token_cap: 100 });
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      // A replica holding 90 of the 100 tokens: while it is alive, its hold counts.
      const month = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1);
      await db.query("INSERT INTO replicas (id, seen_at) VALUES ('replica_dead', now())");
      await db.query('INSERT INTO key_budgets (key_id, month, used_tokens, used_usd, reserved_tokens) VALUES ($1, $2, 0, 0, 90)', [key.id, month]);
      await db.query("INSERT INTO budget_reservations (key_id, month, replica, tokens, usd) VALUES ($1, $2, 'replica_dead', 90, 0)", [key.id, month]);
      const ledger = replicas[1].patchbay.stores.ledger as PostgresBudgetLedger;
      const refused = await ledger.reserve(await replicas[1].patchbay.stores.keys.get(key.id).then((k) => k!), { tokens: 50, costUsd: 0 }, Date.now());
      expect(refused.ok).toBe(false);
      // Then it dies: its row goes stale. The next sweep (this one, or a replica's heartbeat that got
      // there first) gives its hold back.
      await db.query("UPDATE replicas SET seen_at = now() - interval '1 minute' WHERE id = 'replica_dead'");
      await ledger.releaseDead();
      const admitted = await ledger.reserve((await replicas[1].patchbay.stores.keys.get(key.id))!, { tokens: 50, costUsd: 0 }, Date.now());
      expect(admitted.ok).toBe(true);
      if (admitted.ok) admitted.reservation.release();
      expect((await db.query("SELECT count(*)::int AS n FROM budget_reservations WHERE replica = 'replica_dead'")).rows[0].n).toBe(0);
    } finally {
      await db.end();
    }
  }, 60_000);

  // Last: it stops the database under the replicas.
  it('PostgreSQL stopped for 5 s under load: /v1 keeps answering keys without caps, capped keys get a 503, and no answered request loses its row', async () => {
    const { secret } = await replicas[0].patchbay.management.createKey({ name: 'outage' });
    const capped = await replicas[0].patchbay.management.createKey({ name: 'outage-capped', monthly_token_cap: 1_000_000 });
    await Promise.all(replicas.map((r) => untilChecked(r, secret, true)));
    await Promise.all(replicas.map((r) => untilChecked(r, capped.secret, true)));
    const answered: string[] = [];
    let running = true;
    let failedDuringOutage = 0;
    const worker = async (replica: TestPatchbay) => {
      const client = clientOn(replica, secret);
      while (running) {
        try {
          const { response } = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], max_tokens: 5 }).withResponse();
          answered.push(response.headers.get('x-patchbay-request-id')!);
        } catch {
          failedDuringOutage++;
        }
      }
    };
    const workers = [...replicas, ...replicas].map(worker);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await cluster.stopServer();
    const beforeOutage = answered.length;
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const duringOutage = answered.length - beforeOutage;
    const cappedDuringOutage = await ask(clientOn(replicas[1], capped.secret)).catch((e: unknown) => e);
    await cluster.startServer();
    await new Promise((resolve) => setTimeout(resolve, 500));
    running = false;
    await Promise.all(workers);
    expect(failedDuringOutage).toBe(0);
    expect(duringOutage).toBeGreaterThan(0);
    expect(cappedDuringOutage).toMatchObject({ status: 503, code: 'cap_unavailable' });
    // The rows waited in each replica's queue and were written once the database was back.
    for (let i = 0; i < 100; i++) {
      await Promise.all(replicas.map((r) => r.patchbay.stores.usage.flushAsync()));
      const db = new pg.Client({ connectionString: databaseUrl });
      const stored = await db.connect().then(() => db.query('SELECT request_id FROM usage WHERE request_id = ANY($1)', [answered])).finally(() => db.end());
      if (stored.rows.length === answered.length || i === 99) {
        expect(new Set(stored.rows.map((r) => r.request_id as string)).size).toBe(answered.length);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    console.log(`[replicas] PostgreSQL down 5 s: ${duringOutage} requests answered meanwhile, ${answered.length} in all, every row stored`);
  }, 120_000);
});
