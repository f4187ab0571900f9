import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type PatchbayDatabase } from '../../core/sqlite/open-database.ts';
import { UsageBatchWriter, toRowValues, type RowValues } from '../../core/usage/usage-batch-writer.ts';
import { UsageQueries } from '../../core/usage/usage-queries.ts';
import type { UsageRecord } from '../../core/usage/usage-record.ts';

const DAY = 86_400_000;
const FROM = Date.UTC(2026, 9, 1);
const RANGE = { from: FROM, to: FROM + 2 * DAY };

function rows(count: number, start = 0): RowValues[] {
  return Array.from({ length: count }, (_, i): RowValues => {
    const n = start + i;
    const record: UsageRecord = {
      ts: FROM + n * 1000,
      requestId: `req_rollup_${n}`,
      keyId: n % 2 ? 'key_a' : 'key_b',
      endpoint: 'chat',
      requestedModel: 'llama-3.3-70b',
      provider: n % 3 ? 'groq' : 'together',
      model: 'llama-3.3-70b',
      strategy: 'balanced',
      status: n % 10 === 0 ? 502 : 200,
      errorType: n % 10 === 0 ? 'server_error' : null,
      stream: false,
      promptTokens: 10,
      completionTokens: n % 7,
      totalTokens: 10 + (n % 7),
      inputPrice: 1,
      outputPrice: 2,
      costUsd: 0.25,
      latencyMs: 5 + n,
      firstByteMs: null,
      attempts: [],
      routeReason: null,
    };
    return toRowValues(record);
  });
}

const rawTotals = (db: PatchbayDatabase) =>
  db.prepare(`SELECT count(*) AS requests, sum(status >= 400) AS errors, sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
                     sum(total_tokens) AS total_tokens, sum(cost_usd) AS cost_usd FROM usage`).get();

describe('usage rollups kept per batch', () => {
  let dir: string;
  let db: PatchbayDatabase;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'patchbay-rollups-'));
    db = openDatabase(dir);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a batch of 500 rows of two providers and two keys writes a handful of rollup rows, not five per row', () => {
    const writer = new UsageBatchWriter(db, () => undefined);
    writer.write(rows(10));
    const changes = db.prepare('SELECT total_changes()').pluck();
    const before = changes.get() as number;
    writer.write(rows(500, 10));
    // 500 usage rows; the rollups: 2 provider/model and 2 key groups per day and per hour of the
    // batch (500 s span one or two hours), and one latency bucket row per provider and bucket.
    // The Usage page's breakdown adds one row per model and per key and latency bucket of the day.
    // The per-row trigger wrote 500 × 5 = 2,500 rollup rows for the same batch.
    expect((changes.get() as number) - before).toBeLessThan(500 + 300);
    expect(new UsageQueries(db).totals(RANGE)).toEqual(rawTotals(db));
  });

  it('rows and rollups commit together: a batch whose rollup update fails is kept whole and counted once when retried', () => {
    const logged: string[] = [];
    const writer = new UsageBatchWriter(db, (message) => logged.push(message));
    writer.write(rows(20));
    db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON usage_hourly_keys BEGIN SELECT RAISE(ABORT, 'disk full'); END;`);
    writer.write(rows(30, 20));
    expect(writer.isFailing).toBe(true);
    expect(logged.join('\n')).toMatch(/Cannot save usage rows yet \(disk full\); 30 kept in memory/);
    // Neither the rows nor any rollup of the refused batch are in the database.
    expect(db.prepare('SELECT count(*) FROM usage').pluck().get()).toBe(20);
    expect(new UsageQueries(db).totals(RANGE).requests).toBe(20);
    db.exec('DROP TRIGGER refuse');
    writer.flush();
    expect(writer.isFailing).toBe(false);
    expect(new UsageQueries(db).totals(RANGE)).toEqual(rawTotals(db));
    expect(new UsageQueries(db).series(RANGE, 'hour', 'key').data.reduce((sum, row) => sum + row.requests, 0)).toBe(50);
  });

  it('a database from schema 5, whose rollups a trigger kept, counts each new row once after the upgrade', () => {
    new UsageBatchWriter(db, () => undefined).write(rows(10));
    // Schema 5 as the previous version left it: with the per-row trigger (here one rollup of it), without the cache and reasoning columns (schema 7) and provider_key (schema 8).
    db.exec(`CREATE TRIGGER usage_rollups AFTER INSERT ON usage BEGIN UPDATE usage_daily SET requests = requests + 1; END;
      ALTER TABLE usage DROP COLUMN request_class; DROP TABLE usage_session_classes;
      ALTER TABLE usage DROP COLUMN cache_read_tokens; ALTER TABLE usage DROP COLUMN cache_write_5m_tokens; ALTER TABLE usage DROP COLUMN cache_write_1h_tokens; ALTER TABLE usage DROP COLUMN reasoning_tokens; ALTER TABLE usage DROP COLUMN adjustments; ALTER TABLE usage DROP COLUMN error_message; ALTER TABLE usage DROP COLUMN fallback; ALTER TABLE usage DROP COLUMN provider_key;
      DROP INDEX usage_session_ts; DROP INDEX usage_status_session_key; DROP TABLE usage_sessions; ALTER TABLE usage DROP COLUMN session_id; ALTER TABLE usage DROP COLUMN session_source; ALTER TABLE usage DROP COLUMN agent_id; ALTER TABLE usage DROP COLUMN parent_agent_id; ALTER TABLE usage DROP COLUMN cache_saved_usd;
      ALTER TABLE usage DROP COLUMN price_unknown;
      PRAGMA user_version = 5;`);
    db.close();
    db = openDatabase(dir);
    new UsageBatchWriter(db, () => undefined).write(rows(40, 10));
    expect(new UsageQueries(db).totals(RANGE)).toEqual(rawTotals(db));
    expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'usage'").pluck().get()).toBe(0);
  });
});
