// One contract for every store backend (hono's runTest pattern): each backend's test file opens its
// stores and calls runStoreContract; the answers must be the same on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stores } from '../../core/app/open-stores.ts';
import type { ApiKeyRecord } from '../../core/keys/key-store.ts';
import type { UsageRecord } from '../../core/usage/usage-store.ts';
import { generateUsageRows } from '../helpers/generate-usage-rows.ts';

const DAY = 86_400_000;
const FROM = Date.UTC(2026, 8, 1);
const TO = Date.UTC(2026, 10, 1);

export interface OpenedStores {
  stores: Stores;
  cleanup(): Promise<void>;
}

export function runStoreContract(backend: string, open: () => Promise<OpenedStores>): void {
  describe(`${backend}: usage sink and reader`, () => {
    let opened: OpenedStores;
    let rows: UsageRecord[];
    const keyIds: string[] = [];
    beforeAll(async () => {
      opened = await open();
      for (let i = 0; i < 3; i++) keyIds.push((await opened.stores.keys.create({ name: `key ${i}` })).record.id);
      rows = [...generateUsageRows({ rows: 3_000, from: FROM, to: TO, keys: keyIds })];
      rows[10] = { ...rows[10], adjustments: { dropped: ['logprobs'], adjusted: ['max_tokens'] }, cacheReadTokens: 3, reasoningTokens: 2, providerKey: 'work' };
      for (const row of rows) opened.stores.usage.record(row);
    }, 60_000);
    afterAll(() => opened?.cleanup());

    const inRange = (from: number, to: number) => rows.filter((r) => r.ts >= from && r.ts < to);
    const sum = (list: UsageRecord[], pick: (r: UsageRecord) => number) => list.reduce((total, r) => total + pick(r), 0);

    it('reads see every row recorded before them: totals over a range', async () => {
      for (const [from, to] of [[FROM, TO], [FROM + 10 * DAY, FROM + 11 * DAY]]) {
        const totals = await opened.stores.reader.totals({ from, to });
        const expected = inRange(from, to);
        expect(totals).toMatchObject({
          requests: expected.length,
          errors: expected.filter((r) => r.status >= 400).length,
          prompt_tokens: sum(expected, (r) => r.promptTokens),
          completion_tokens: sum(expected, (r) => r.completionTokens),
          total_tokens: sum(expected, (r) => r.totalTokens),
        });
        expect(totals.cost_usd).toBeCloseTo(sum(expected, (r) => r.costUsd), 6);
      }
    });

    it('series per day by key add up to the totals, with key names', async () => {
      const series = await opened.stores.reader.series({ from: FROM, to: TO }, 'day', 'key');
      expect(series.data.reduce((n, p) => n + p.requests, 0)).toBe(rows.length);
      const forKey = series.data.filter((p) => p.group === keyIds[1]);
      expect(forKey.reduce((n, p) => n + p.requests, 0)).toBe(rows.filter((r) => r.keyId === keyIds[1]).length);
      expect(forKey[0].key_name).toBe('key 1');
      expect(series.data.map((p) => p.bucket)).toEqual([...series.data.map((p) => p.bucket)].sort());
      const hourly = await opened.stores.reader.series({ from: FROM + DAY, to: FROM + 2 * DAY }, 'hour', 'model');
      expect(hourly.data.reduce((n, p) => n + p.requests, 0)).toBe(inRange(FROM + DAY, FROM + 2 * DAY).length);
      expect(hourly.data[0].bucket).toMatch(/^2026-09-02T\d\d$/);
    });

    it('latency per provider and day counts the answered requests', async () => {
      const latency = await opened.stores.reader.latency({ from: FROM, to: FROM + 3 * DAY });
      const openai = latency.filter((r) => r.provider === 'openai');
      expect(openai.reduce((n, r) => n + r.requests, 0)).toBe(inRange(FROM, FROM + 3 * DAY).filter((r) => r.provider === 'openai').length);
      for (const row of openai) expect(row.p95_ms!).toBeGreaterThanOrEqual(row.p50_ms!);
    });

    it('the request log pages newest first through every row of a filter, and finds one request by id', async () => {
      const range = { from: FROM, to: FROM + 5 * DAY };
      const expected = inRange(range.from, range.to).filter((r) => r.status >= 400);
      const seen: string[] = [];
      let cursor: { ts: number; id: number } | null = null;
      for (let page = 0; page < 100; page++) {
        const result = await opened.stores.reader.requestLog(range, { status: 'error' }, 50, cursor);
        seen.push(...result.data.map((r) => r.request_id));
        for (const row of result.data) expect(row.status).toBeGreaterThanOrEqual(400);
        if (!result.next_cursor) break;
        const [ts, id] = Buffer.from(result.next_cursor, 'base64url').toString().split('.').map(Number);
        cursor = { ts, id };
      }
      expect(seen.sort()).toEqual(expected.map((r) => r.requestId).sort());
      const one = await opened.stores.reader.request(expected[0].requestId);
      expect(one).toMatchObject({ request_id: expected[0].requestId, status: expected[0].status, stream: expected[0].stream, attempts: expected[0].attempts });
      expect(await opened.stores.reader.request('no-such-request')).toBeNull();
      // Every column comes back, those other features added included.
      expect(await opened.stores.reader.request(rows[10].requestId)).toMatchObject({ adjustments: { dropped: ['logprobs'], adjusted: ['max_tokens'] }, cache_read_tokens: 3, reasoning_tokens: 2, provider_key: 'work' });
    });

    it('key totals, totals by group, raw rows and recent attempts', async () => {
      const since = FROM + 20 * DAY;
      const mine = rows.filter((r) => r.keyId === keyIds[0] && r.ts >= since);
      const totals = await opened.stores.reader.keyTotalsSince(keyIds[0], since);
      expect(totals.tokens).toBe(sum(mine, (r) => r.totalTokens));
      expect(totals.usd).toBeCloseTo(sum(mine, (r) => r.costUsd), 6);
      const byKey = await opened.stores.reader.totalsBy('key', FROM, TO);
      expect(byKey.find((g) => g.group === keyIds[2])!.requests).toBe(rows.filter((r) => r.keyId === keyIds[2]).length);
      const byDay = await opened.stores.reader.totalsBy('day', FROM, TO);
      expect(byDay[0].group).toBe('2026-09-01');
      const raw = await opened.stores.reader.rows(FROM, FROM + DAY, 5);
      expect(raw).toHaveLength(5);
      expect(typeof raw[0].stream).toBe('boolean');
      expect(Array.isArray(raw[0].attempts)).toBe(true);
      const recent = await opened.stores.reader.recentAttempts(TO - 2 * DAY);
      expect(recent.length).toBe(rows.filter((r) => r.ts >= TO - 2 * DAY).length);
    });
  });

  describe(`${backend}: key store`, () => {
    let opened: OpenedStores;
    beforeAll(async () => {
      opened = await open();
    }, 60_000);
    afterAll(() => opened?.cleanup());

    it('creates, checks, rotates, updates, revokes and lists keys; check needs no I/O', async () => {
      const { keys } = opened.stores;
      const before = await keys.count();
      const created = await keys.create({ name: 'team', monthlyTokenCap: 1000, allowedModels: ['gpt-4o'] });
      expect(created.secret).toMatch(/^pb-/);
      expect(keys.check(created.secret)).toMatchObject({ ok: true, record: { id: created.record.id, name: 'team', monthlyTokenCap: 1000, allowedModels: ['gpt-4o'] } });
      expect(keys.check('pb-not-a-key')).toEqual({ ok: false, reason: 'unknown' });
      expect(keys.nameOf(created.record.id)).toBe('team');
      const rotated = (await keys.rotate(created.record.id))!;
      expect(keys.check(created.secret)).toEqual({ ok: false, reason: 'unknown' });
      expect(keys.check(rotated.secret).ok).toBe(true);
      const updated = (await keys.update(created.record.id, { name: 'team 2', monthlyTokenCap: null, rpmLimit: 5 }))!;
      expect(updated).toMatchObject({ name: 'team 2', monthlyTokenCap: null, rpmLimit: 5, allowedModels: ['gpt-4o'] });
      expect((keys.check(rotated.secret) as { record: ApiKeyRecord }).record.rpmLimit).toBe(5);
      expect(await keys.update('key_missing', { name: 'x' })).toBeUndefined();
      expect(await keys.revoke(created.record.id)).toBe(true);
      expect(await keys.revoke('key_missing')).toBe(false);
      expect(keys.check(rotated.secret)).toMatchObject({ ok: false, reason: 'revoked' });
      expect(await keys.rotate(created.record.id)).toBeUndefined();
      const expired = await keys.create({ name: 'old', expiresAt: Date.now() - 1 });
      expect(keys.check(expired.secret)).toMatchObject({ ok: false, reason: 'expired' });
      expect(await keys.count()).toBe(before + 2);
      expect((await keys.list()).map((k) => k.name).slice(-2)).toEqual(['team 2', 'old']);
      expect((await keys.get(created.record.id))!.revokedAt).not.toBeNull();
      expect(await keys.get('key_missing')).toBeUndefined();
    });
  });

  describe(`${backend}: budget ledger`, () => {
    let opened: OpenedStores;
    beforeAll(async () => {
      opened = await open();
    }, 60_000);
    afterAll(() => opened?.cleanup());

    it('concurrent reservations never pass the cap together; settling and releasing free what they held', async () => {
      const { keys, ledger } = opened.stores;
      const key = (await keys.create({ name: 'capped', monthlyTokenCap: 1_000 })).record;
      const now = Date.now();
      const results = await Promise.all(Array.from({ length: 30 }, () => ledger.reserve(key, { tokens: 100, costUsd: 0 }, now)));
      const admitted = results.filter((r) => r.ok);
      expect(admitted).toHaveLength(10);
      const refused = results.find((r) => !r.ok)!;
      expect(refused).toMatchObject({ ok: false, cap: 'tokens' });
      type Held = Extract<(typeof results)[number], { ok: true }>;
      // A released hold is room again (proved by taking it back).
      (admitted[1] as Held).reservation.release();
      await waitFor(async () => (await ledger.reserve(key, { tokens: 100, costUsd: 0 }, now)).ok);
      // Settled at a tenth of its estimate: 10 used, 9 × 100 held, 90 left: one of five 90-token requests fits.
      const settled = await new Promise((resolve) => (admitted[0] as Held).reservation.settle({ tokens: 10, costUsd: 0 }, resolve));
      expect(settled).toMatchObject({ usedTokens: 10, reservedTokens: 900 });
      const after = await Promise.all(Array.from({ length: 5 }, () => ledger.reserve(key, { tokens: 90, costUsd: 0 }, now)));
      expect(after.filter((r) => r.ok)).toHaveLength(1);
    });

    it('a USD cap refuses by cost, and each month starts from that month\'s usage', async () => {
      const { keys, ledger } = opened.stores;
      const key = (await keys.create({ name: 'usd', monthlyUsdCap: 1 })).record;
      const now = Date.UTC(2026, 10, 15);
      const first = await ledger.reserve(key, { tokens: 10, costUsd: 0.75 }, now);
      expect(first.ok).toBe(true);
      expect(await ledger.reserve(key, { tokens: 10, costUsd: 0.5 }, now)).toMatchObject({ ok: false, cap: 'usd' });
      expect((await ledger.reserve(key, { tokens: 10, costUsd: 0.5 }, Date.UTC(2026, 11, 1))).ok).toBe(true);
    });
  });
}

/** Polls until the condition holds (settlement on PostgreSQL is not awaited by the request). */
async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition never held');
}
