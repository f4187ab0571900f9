import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyStore } from '../../core/keys/key-store.ts';
import { openDatabase, type PatchbayDatabase } from '../../core/sqlite/open-database.ts';
import { usageBreakdown } from '../../core/usage/usage-breakdown.ts';
import { UsageStore } from '../../core/usage/usage-store.ts';
import { generateUsageRows } from '../helpers/generate-usage-rows.ts';

const DAY = 86_400_000;
const FROM = Date.UTC(2026, 8, 1);
const TO = Date.UTC(2026, 10, 1);
const BUCKET_RATIO = 2 ** (1 / 8);
const percentile = (sorted: number[], p: number) => sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1];

// The Usage page's tables come from daily rollups kept by the writer: they must say what a plain
// computation over the raw rows says.
describe('the usage breakdown on 10,000 generated rows equals a computation over the raw rows', () => {
  let dir: string;
  let db: PatchbayDatabase;
  let usage: UsageStore;
  const keyIds: string[] = [];
  const range = { from: FROM + 10 * DAY, to: FROM + 40 * DAY };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'patchbay-usage-breakdown-'));
    db = openDatabase(dir);
    const keys = new KeyStore(db);
    for (let i = 0; i < 3; i++) keyIds.push(keys.create({ name: `key ${i}` }).record.id);
    usage = new UsageStore(db, () => undefined);
    for (const row of generateUsageRows({ rows: 10_000, from: FROM, to: TO, keys: keyIds })) usage.record(row);
    usage.flush();
  });
  afterAll(async () => {
    await usage.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [groupBy, expression] of [
    ['model', "CASE WHEN model IS NULL THEN NULL ELSE provider || '/' || model END"],
    ['provider', 'provider'],
    ['key', 'key_id'],
  ] as const) {
    it(`by ${groupBy}: requests, tokens, cost and p50/p95 of each group`, () => {
      const raw = db
        .prepare(
          `SELECT ${expression} AS g, count(*) AS requests, sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
                  sum(cache_read_tokens) AS cache_read_tokens, sum(cost_usd) AS cost_usd
             FROM usage WHERE ts >= ? AND ts < ? GROUP BY 1`,
        )
        .all(range.from, range.to) as { g: string | null; requests: number; prompt_tokens: number; completion_tokens: number; cache_read_tokens: number; cost_usd: number }[];
      const table = usageBreakdown(db, range, groupBy).data;
      for (const r of raw) {
        const row = table.find((t) => t.group === r.g)!;
        expect(row, String(r.g)).toBeDefined();
        const { g, ...sums } = r;
        expect({ ...row, cost_usd: Math.round(row.cost_usd * 1e6) }).toMatchObject({ ...sums, group: g, cost_usd: Math.round(r.cost_usd * 1e6) });
        if (groupBy === 'key' && r.g !== null) expect(row.key_name).toMatch(/^key \d$/);
        const latencies = db
          .prepare(`SELECT latency_ms FROM usage WHERE ts >= ? AND ts < ? AND status < 400 AND ${expression} IS ? ORDER BY latency_ms`)
          .pluck()
          .all(range.from, range.to, r.g) as number[];
        for (const [p, reported] of [[0.5, row.p50_ms], [0.95, row.p95_ms]] as const) {
          if (latencies.length === 0) expect(reported).toBeNull();
          else {
            const exact = percentile(latencies, p);
            expect(reported!).toBeGreaterThanOrEqual(exact - 0.01);
            expect(reported!).toBeLessThanOrEqual(Math.max(1, exact) * BUCKET_RATIO + 0.01);
          }
        }
      }
    });
  }

  it('per provider, errors are its failed attempts, those a fallback rescued included', () => {
    const failed = db
      .prepare(
        `SELECT json_extract(a.value, '$.provider') AS provider, count(*) AS failures FROM usage u, json_each(u.attempts) a
          WHERE u.ts >= ? AND u.ts < ? AND json_extract(a.value, '$.status') != 200 AND coalesce(json_extract(a.value, '$.error_type'), '') != 'cancelled' GROUP BY 1`,
      )
      .all(range.from, range.to) as { provider: string; failures: number }[];
    expect(failed.length).toBeGreaterThan(0);
    const table = usageBreakdown(db, range, 'provider').data;
    for (const f of failed) expect(table.find((t) => t.group === f.provider)?.errors, f.provider).toBe(f.failures);
  });
});
