import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStores } from '../../core/app/open-stores.ts';
import { POSTGRES_MIGRATIONS } from '../../core/postgres/postgres-migrations.ts';
import { EventHub } from '../../core/events/event-hub.ts';
import { startPostgres, testPool, type TestPostgres } from '../helpers/start-postgres.ts';
import { runStoreContract } from './store-contract.ts';

let cluster: TestPostgres;
beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(() => cluster?.stop());

runStoreContract('PostgreSQL', async () => {
  const stores = await openStores({ dataDir: '/nonexistent', databaseUrl: await cluster.createDatabase(), log: () => undefined, events: new EventHub() });
  return { stores, cleanup: () => stores.close() };
});

describe('PostgreSQL: a database written by an older Patchbay', () => {
  it("is migrated at start: its rows keep every column's default and fill the Usage tables; new rows carry sessions", async () => {
    const url = await cluster.createDatabase();
    // The schema as stop 19 left it (its 3 migrations), with one answered and one failed row in it.
    const pool = testPool({ connectionString: url });
    await pool.query('CREATE TABLE schema_version (version integer NOT NULL); INSERT INTO schema_version VALUES (3)');
    for (const sql of POSTGRES_MIGRATIONS.slice(0, 3)) await pool.query(sql);
    const ts = Date.UTC(2026, 9, 5, 12);
    const attempts = (status: number) => JSON.stringify([{ provider: 'groq', model: 'llama', status, error_type: status === 200 ? null : 'server_error', message: null, latency_ms: 100 }]);
    await pool.query(
      `INSERT INTO usage (ts, request_id, endpoint, provider, model, status, prompt_tokens, completion_tokens, total_tokens, cost_usd, latency_ms, attempts)
       VALUES ($1, 'old-ok', 'chat', 'groq', 'llama', 200, 10, 5, 15, 0.25, 128, $2), ($1, 'old-failed', 'chat', 'groq', 'llama', 500, 0, 0, 0, 0, 50, $3)`,
      [ts, attempts(200), attempts(500)],
    );
    await pool.end();

    const stores = await openStores({ dataDir: '/nonexistent', databaseUrl: url, log: () => undefined, events: new EventHub() });
    try {
      const range = { from: Date.UTC(2026, 9, 1), to: Date.UTC(2026, 10, 1) };
      const breakdown = await stores.reader.breakdown(range, 'model');
      expect(breakdown.data).toEqual([{ group: 'groq/llama', key_name: null, requests: 2, errors: 1, prompt_tokens: 10, completion_tokens: 5, cache_read_tokens: 0, cost_usd: 0.25, p50_ms: 128, p95_ms: 128 }]);
      expect(await stores.reader.request('old-ok')).toMatchObject({ session_id: null, agent_id: null, cache_saved_usd: 0, error_message: null, fallback: false });
      stores.usage.record({
        ts: ts + 1000, requestId: 'new-in-session', keyId: null, endpoint: 'chat', requestedModel: 'llama', provider: 'groq', model: 'llama', strategy: 'balanced',
        status: 200, errorType: null, stream: false, promptTokens: 20, completionTokens: 2, totalTokens: 22, inputPrice: 1, outputPrice: 1, costUsd: 0.5,
        latencyMs: 80, firstByteMs: null, attempts: [], sessionId: 'after-upgrade', sessionSource: 'patchbay',
      });
      const sessions = await stores.reader.sessions(range, {}, 10, null);
      expect(sessions.data.map((s) => [s.session_id, s.requests, s.client])).toEqual([['after-upgrade', 1, 'patchbay']]);
    } finally {
      await stores.close();
    }
  });
});
