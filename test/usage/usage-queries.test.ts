import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyStore } from '../../core/keys/key-store.ts';
import { openDatabase, type PatchbayDatabase } from '../../core/sqlite/open-database.ts';
import { UsageStore } from '../../core/usage/usage-store.ts';
import { generateUsageRows } from '../helpers/generate-usage-rows.ts';

const DAY = 86_400_000;
const FROM = Date.UTC(2026, 8, 1);
const TO = Date.UTC(2026, 10, 1);
/** Histogram buckets are 2^(1/8) wide: a percentile from them is within this factor of the exact one. */
const BUCKET_RATIO = 2 ** (1 / 8);

/** The nearest-rank percentile of an ascending list. */
const percentile = (sorted: number[], p: number) => sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1];

describe('usage queries on 20,000 generated rows equal a straightforward SQL computation over the raw rows', () => {
  let dir: string;
  let db: PatchbayDatabase;
  let usage: UsageStore;
  const keyIds: string[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'patchbay-usage-queries-'));
    db = openDatabase(dir);
    const keys = new KeyStore(db);
    for (let i = 0; i < 5; i++) keyIds.push(keys.create({ name: `key ${i}` }).record.id);
    usage = new UsageStore(db, () => undefined);
    // Through the real writer path: queued, committed in batches, rollups kept by the database.
    for (const row of generateUsageRows({ rows: 20_000, from: FROM, to: TO, keys: keyIds })) usage.record(row);
    usage.flush();
  });
  afterAll(async () => {
    await usage.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rawTotals = (from: number, to: number) =>
    db
      .prepare(
        `SELECT count(*) AS requests, coalesce(sum(status >= 400), 0) AS errors, coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
                coalesce(sum(completion_tokens), 0) AS completion_tokens, coalesce(sum(total_tokens), 0) AS total_tokens, coalesce(sum(cost_usd), 0) AS cost_usd
           FROM usage WHERE ts >= ? AND ts < ?`,
      )
      .get(from, to) as Record<string, number>;

  it('totals for a date range', () => {
    for (const [from, to] of [[FROM, TO], [FROM + 10 * DAY, FROM + 11 * DAY], [Date.UTC(2026, 9, 1), TO]]) {
      const totals = usage.totals({ from, to });
      const raw = rawTotals(from, to);
      expect(raw.requests).toBeGreaterThan(0);
      expect({ ...totals, cost_usd: undefined }).toEqual({ ...raw, cost_usd: undefined });
      expect(totals.cost_usd).toBeCloseTo(raw.cost_usd, 9);
    }
  });

  it('series per day and per hour, grouped by provider, model and key (with key names)', () => {
    const cases = [
      { bucket: 'day', groupBy: 'provider', b: "strftime('%Y-%m-%d', ts / 1000, 'unixepoch')", g: 'provider', range: { from: FROM, to: TO } },
      { bucket: 'day', groupBy: 'model', b: "strftime('%Y-%m-%d', ts / 1000, 'unixepoch')", g: "provider || '/' || model", range: { from: FROM, to: TO } },
      { bucket: 'day', groupBy: 'key', b: "strftime('%Y-%m-%d', ts / 1000, 'unixepoch')", g: 'key_id', range: { from: FROM + 3 * DAY, to: FROM + 25 * DAY } },
      { bucket: 'hour', groupBy: 'key', b: "strftime('%Y-%m-%dT%H', ts / 1000, 'unixepoch')", g: 'key_id', range: { from: FROM + 3 * DAY, to: FROM + 5 * DAY } },
      { bucket: 'hour', groupBy: 'model', b: "strftime('%Y-%m-%dT%H', ts / 1000, 'unixepoch')", g: "provider || '/' || model", range: { from: FROM + 3 * DAY, to: FROM + 5 * DAY } },
    ] as const;
    for (const c of cases) {
      const raw = db
        .prepare(
          `SELECT ${c.b} AS bucket, ${c.g} AS "group", count(*) AS requests, sum(status >= 400) AS errors, sum(total_tokens) AS total_tokens, sum(cost_usd) AS cost_usd
             FROM usage WHERE ts >= ? AND ts < ? GROUP BY 1, 2`,
        )
        .all(c.range.from, c.range.to) as { bucket: string; group: string | null; requests: number; errors: number; total_tokens: number; cost_usd: number }[];
      const series = usage.series(c.range, c.bucket, c.groupBy);
      const key = (r: { bucket: string; group: string | null }) => `${r.bucket}|${r.group}`;
      const got = new Map(series.data.map((r) => [key(r), r]));
      expect(series.data).toHaveLength(raw.length);
      for (const r of raw) {
        const point = got.get(key(r))!;
        expect(point, key(r)).toBeDefined();
        expect([point.requests, point.errors, point.total_tokens]).toEqual([r.requests, r.errors, r.total_tokens]);
        expect(point.cost_usd).toBeCloseTo(r.cost_usd, 9);
        if (c.groupBy === 'key') expect(point.key_name).toBe(r.group === null ? null : `key ${keyIds.indexOf(r.group)}`);
      }
    }
  });

  it('latency p50/p95 per provider and day within one histogram bucket, requests and error rate exact', () => {
    const range = { from: FROM + 20 * DAY, to: FROM + 27 * DAY };
    const rows = usage.latency(range);
    expect(rows.length).toBe(7 * 6);
    for (const row of rows) {
      const dayStart = Date.parse(`${row.day}T00:00:00Z`);
      const counts = db
        .prepare('SELECT count(*) AS requests, sum(status >= 400) AS errors FROM usage WHERE provider = ? AND ts >= ? AND ts < ?')
        .get(row.provider, dayStart, dayStart + DAY) as { requests: number; errors: number };
      expect([row.requests, row.errors]).toEqual([counts.requests, counts.errors]);
      expect(row.error_rate).toBeCloseTo(counts.errors / counts.requests, 12);
      const latencies = (db.prepare('SELECT latency_ms FROM usage WHERE provider = ? AND status < 400 AND ts >= ? AND ts < ? ORDER BY latency_ms').pluck().all(row.provider, dayStart, dayStart + DAY) as number[]);
      for (const [p, reported] of [[0.5, row.p50_ms], [0.95, row.p95_ms]] as const) {
        const exact = percentile(latencies, p);
        expect(reported!, `${row.day} ${row.provider} p${p * 100}`).toBeGreaterThanOrEqual(exact - 0.01);
        expect(reported!).toBeLessThanOrEqual(exact * BUCKET_RATIO + 0.01);
      }
    }
  });

  it('the request log pages newest first through rows with equal ts, under each filter, with nothing lost or repeated', () => {
    const range = { from: FROM + 40 * DAY, to: FROM + 43 * DAY };
    const filters = [
      { filter: {}, sql: '' },
      { filter: { status: 'error' as const }, sql: 'AND status >= 400' },
      { filter: { status: 'ok' as const, provider: 'groq' }, sql: "AND status < 400 AND provider = 'groq'" },
      { filter: { status: 429, keyId: keyIds[2] }, sql: `AND status = 429 AND key_id = '${keyIds[2]}'` },
      // The model filter matches the model asked for (with or without a :strategy suffix), the provider's id, or provider/model.
      {
        filter: { model: 'openai-model-3' },
        sql: "AND (model = 'openai-model-3' OR requested_model = 'openai-model-3' OR requested_model LIKE 'openai-model-3:%' OR provider || '/' || model = 'openai-model-3')",
      },
    ];
    const sharedTs = db.prepare('SELECT count(*) FROM (SELECT ts FROM usage WHERE ts >= ? AND ts < ? GROUP BY ts HAVING count(*) > 1)').pluck().get(range.from, range.to) as number;
    expect(sharedTs).toBeGreaterThan(0);
    for (const { filter, sql } of filters) {
      const expected = db.prepare(`SELECT request_id FROM usage WHERE ts >= ? AND ts < ? ${sql} ORDER BY ts DESC, id DESC`).pluck().all(range.from, range.to) as string[];
      expect(expected.length).toBeGreaterThan(0);
      const seen: string[] = [];
      let cursor: { ts: number; id: number } | null = null;
      for (let pages = 0; pages < 1000; pages++) {
        const page = usage.requestLog(range, filter, 37, cursor);
        seen.push(...page.data.map((r) => r.request_id));
        if (!page.next_cursor) break;
        const [ts, id] = Buffer.from(page.next_cursor, 'base64url').toString().split('.').map(Number);
        cursor = { ts, id };
      }
      expect(seen).toEqual(expected);
    }
  });

  it('one request by id, with its attempts and route reason', () => {
    const raw = db.prepare("SELECT * FROM usage WHERE status = 200 AND key_id IS NOT NULL LIMIT 1 OFFSET 777").get() as Record<string, unknown>;
    const row = usage.request(raw.request_id as string)!;
    expect(row).toMatchObject({ request_id: raw.request_id, provider: raw.provider, route_reason: raw.route_reason, key_name: `key ${keyIds.indexOf(raw.key_id as string)}` });
    expect(row.attempts).toEqual(JSON.parse(raw.attempts as string));
    expect(row.route_reason).toMatch(/balanced chose/);
    expect(usage.request('req_unknown')).toBeNull();
  });

  it('the migration backfills the rollups from rows written before it', async () => {
    const before = usage.totals({ from: FROM, to: TO });
    const series = usage.series({ from: FROM, to: TO }, 'day', 'model');
    const latency = usage.latency({ from: FROM, to: TO });
    await usage.close();
    db.close();
    // Back to schema 4 (no rollups, no route_reason, no cache and reasoning columns, no provider_key), as a database from before these versions.
    const old = new Database(join(dir, 'patchbay.db'));
    old.exec(`ALTER TABLE usage DROP COLUMN request_class; DROP TABLE usage_session_classes;
      ALTER TABLE usage DROP COLUMN cache_read_tokens; ALTER TABLE usage DROP COLUMN cache_write_5m_tokens; ALTER TABLE usage DROP COLUMN cache_write_1h_tokens; ALTER TABLE usage DROP COLUMN reasoning_tokens; ALTER TABLE usage DROP COLUMN adjustments; ALTER TABLE usage DROP COLUMN error_message; ALTER TABLE usage DROP COLUMN fallback; ALTER TABLE usage DROP COLUMN provider_key;
      DROP INDEX usage_session_ts; DROP INDEX usage_status_session_key; DROP TABLE usage_sessions; ALTER TABLE usage DROP COLUMN session_id; ALTER TABLE usage DROP COLUMN session_source; ALTER TABLE usage DROP COLUMN agent_id; ALTER TABLE usage DROP COLUMN parent_agent_id; ALTER TABLE usage DROP COLUMN cache_saved_usd;
      ALTER TABLE usage DROP COLUMN price_unknown;
      DROP TABLE usage_daily; DROP TABLE usage_daily_keys; DROP TABLE usage_hourly; DROP TABLE usage_hourly_keys; DROP TABLE usage_latency_daily;
      DROP INDEX usage_request_id; DROP INDEX usage_provider_ts; DROP INDEX usage_model_ts; DROP INDEX usage_status_ts;
      ALTER TABLE usage DROP COLUMN route_reason; PRAGMA user_version = 4;`);
    old.close();
    db = openDatabase(dir);
    usage = new UsageStore(db, () => undefined);
    // Sums of costs differ in the last bits with the order they were added in.
    const rounded = <T extends { cost_usd: number }>(row: T) => ({ ...row, cost_usd: Math.round(row.cost_usd * 1e9) });
    expect(rounded(usage.totals({ from: FROM, to: TO }))).toEqual(rounded(before));
    expect(usage.series({ from: FROM, to: TO }, 'day', 'model').data.map(rounded)).toEqual(series.data.map(rounded));
    expect(usage.latency({ from: FROM, to: TO })).toEqual(latency);
  });
});
