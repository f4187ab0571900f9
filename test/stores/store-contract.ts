// One contract for every store backend (hono's runTest pattern): each backend's test file opens its
// stores and calls runStoreContract; the answers must be the same on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stores } from '../../core/stores/stores.ts';
import type { ApiKeyRecord } from '../../core/keys/key-store.ts';
import type { UsageRecord } from '../../core/usage/usage-record.ts';
import type { LogFilter, SessionCursor } from '../../core/usage/usage-backend.ts';
import { parseSessionCursor } from '../../core/usage/session-page.ts';
import type { SessionRow } from '../../core/usage/usage-views.ts';
import { generateUsageRows } from '../helpers/generate-usage-rows.ts';

const DAY = 86_400_000;
const FROM = Date.UTC(2026, 8, 1);
const TO = Date.UTC(2026, 10, 1);

/** The usage table's columns as the export gives them (SQLite's order; PostgreSQL's migrations keep it). */
const USAGE_EXPORT_COLUMNS = [
  'id', 'ts', 'request_id', 'key_id', 'endpoint', 'requested_model', 'provider', 'model', 'strategy', 'status', 'error_type', 'stream',
  'prompt_tokens', 'completion_tokens', 'total_tokens', 'input_price', 'output_price', 'cost_usd', 'latency_ms', 'first_byte_ms', 'attempts',
  'route_reason', 'cache_read_tokens', 'cache_write_5m_tokens', 'cache_write_1h_tokens', 'reasoning_tokens', 'adjustments', 'provider_key',
  'session_id', 'session_source', 'agent_id', 'parent_agent_id', 'cache_saved_usd', 'error_message', 'fallback', 'price_unknown', 'request_class',
];

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
      // A request rescued by a fallback: groq failed first (a failed attempt of groq's model), openai answered.
      const rescued = rows[20];
      rows[20] = {
        ...rescued,
        status: 200,
        errorType: null,
        provider: 'openai',
        model: 'openai-model-2',
        requestedModel: 'openai-model-2:cost',
        fallback: true,
        errorMessage: 'groq answered 500; served by openai',
        attempts: [
          { provider: 'groq', model: 'groq-model-4', status: 500, error_type: 'server_error', message: 'boom', latency_ms: 12 },
          { provider: 'openai', model: 'openai-model-2', status: 200, error_type: null, message: null, latency_ms: rescued.latencyMs },
        ],
      };
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

    const DAYS_10 = { from: FROM, to: FROM + 10 * DAY };
    /** What the Sessions page must show for these rows, computed here from the rows themselves. */
    const expectedSessions = (list: UsageRecord[]) => {
      const sessions = new Map<string, UsageRecord[]>();
      // A session is its key's: the same id sent by two keys would be two sessions.
      for (const r of list) if (r.sessionId) sessions.set(`${r.keyId ?? ''}\u0000${r.sessionId}`, [...(sessions.get(`${r.keyId ?? ''}\u0000${r.sessionId}`) ?? []), r]);
      return [...sessions]
        .map(([, mine]) => ({
          session_id: mine[0].sessionId!,
          key_id: mine[0].keyId,
          client: mine[0].sessionSource,
          first_ts: new Date(Math.min(...mine.map((r) => r.ts))).toISOString(),
          last_ts: new Date(Math.max(...mine.map((r) => r.ts))).toISOString(),
          requests: mine.length,
          errors: mine.filter((r) => r.status >= 400).length,
          prompt_tokens: sum(mine, (r) => r.promptTokens),
          completion_tokens: sum(mine, (r) => r.completionTokens),
          cache_read_tokens: sum(mine, (r) => r.cacheReadTokens ?? 0),
          cost_usd: sum(mine, (r) => r.costUsd),
          cache_saved_usd: sum(mine, (r) => r.cacheSavedUsd ?? 0),
          models: [...new Set(mine.map((r) => r.model).filter((m) => m))].sort(),
          providers: [...new Set(mine.map((r) => r.provider).filter((p) => p))].sort(),
          rows: mine,
        }))
        .sort((a, b) => (a.last_ts === b.last_ts ? (a.session_id < b.session_id ? 1 : -1) : a.last_ts < b.last_ts ? 1 : -1));
    };
    /** Every session of a filter, page after page, as the dashboard scrolls through them. */
    const allSessions = async (range: { from: number; to: number }, filter: LogFilter, limit = 25) => {
      const seen: SessionRow[] = [];
      let cursor: SessionCursor | null = null;
      for (let page = 0; page < 200; page++) {
        const result = await opened.stores.reader.sessions!(range, filter, limit, cursor);
        expect(result.data.length).toBeLessThanOrEqual(limit);
        seen.push(...result.data);
        if (!result.next_cursor) return seen;
        cursor = parseSessionCursor(result.next_cursor);
      }
      throw new Error('too many pages');
    };

    it('sessions: the newest first, with their sums, models and providers, page after page', async () => {
      const expected = expectedSessions(inRange(DAYS_10.from, DAYS_10.to));
      expect(expected.length).toBeGreaterThan(30);
      const seen = await allSessions(DAYS_10, {});
      expect(seen.map((s) => s.session_id)).toEqual(expected.map((s) => s.session_id));
      for (const [i, session] of seen.entries()) {
        const { cost_usd, cache_saved_usd, rows: _rows, ...exact } = expected[i];
        expect(session).toMatchObject(exact);
        expect(session.cost_usd).toBeCloseTo(cost_usd, 9);
        expect(session.cache_saved_usd).toBeCloseTo(cache_saved_usd, 9);
      }
    });

    it('sessions: filtered by provider, model, key, session and status', async () => {
      const list = inRange(DAYS_10.from, DAYS_10.to);
      const ids = (sessions: SessionRow[]) => sessions.map((s) => s.session_id);
      const having = (test: (r: UsageRecord) => boolean) => expectedSessions(list).filter((s) => s.rows.some(test)).map((s) => s.session_id);
      expect(ids(await allSessions(DAYS_10, { provider: 'anthropic' }))).toEqual(having((r) => r.provider === 'anthropic'));
      expect(ids(await allSessions(DAYS_10, { model: 'groq-model-3' }))).toEqual(having((r) => r.model === 'groq-model-3'));
      expect(ids(await allSessions(DAYS_10, { keyId: keyIds[2] }))).toEqual(having((r) => r.keyId === keyIds[2]));
      expect(ids(await allSessions(DAYS_10, { status: 429 }))).toEqual(having((r) => r.status === 429));
      expect(ids(await allSessions(DAYS_10, { status: 'error' }))).toEqual(having((r) => r.status >= 400));
      expect(ids(await allSessions(DAYS_10, { status: 'ok' }))).toEqual(having((r) => r.status < 400));
      const one = expectedSessions(list)[3];
      const found = await allSessions(DAYS_10, { session: one.session_id });
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ session_id: one.session_id, requests: one.requests });
    });

    it('sessions: one id sent by two keys is two sessions, each with its own key, sums and agents, paged apart', async () => {
      const at = FROM - 20 * DAY;
      const base = rows.find((r) => r.status === 200 && r.sessionId)!;
      const sent = [
        { keyId: keyIds[0], ts: at + 1, agentId: 'main', completionTokens: 10 },
        { keyId: keyIds[0], ts: at + 5, agentId: 'main', completionTokens: 20 },
        { keyId: keyIds[1], ts: at + 5, agentId: 'intruder', completionTokens: 400 },
        { keyId: null, ts: at + 3, agentId: null, completionTokens: 7 },
      ];
      for (const [i, row] of sent.entries()) {
        opened.stores.usage.record({ ...base, ...row, requestId: `req_shared_${i}`, sessionId: 'shared-session-id', parentAgentId: null, totalTokens: base.promptTokens + row.completionTokens });
      }
      const range = { from: at - DAY, to: at + DAY };
      // The two last active at the same instant come by key id, highest first (as session ids do).
      const tied = [
        { key_id: keyIds[1], key_name: 'key 1', requests: 1, completion_tokens: 400, agents: ['intruder'] },
        { key_id: keyIds[0], key_name: 'key 0', requests: 2, completion_tokens: 30, agents: ['main'] },
      ].sort((a, b) => (a.key_id < b.key_id ? 1 : -1));
      const expected = [...tied, { key_id: null, key_name: null, requests: 1, completion_tokens: 7, agents: [] as string[] }];
      const shape = (list: SessionRow[]) => list.map((s) => ({ key_id: s.key_id, key_name: s.key_name, requests: s.requests, completion_tokens: s.completion_tokens, agents: s.agents.map((a) => a.agent_id) }));
      // Newest first; the two last active at the same instant by key, one page at a time.
      expect(shape(await allSessions(range, {}, 1))).toEqual(expected);
      expect(shape(await allSessions(range, {}, 10))).toEqual(expected);
      expect(shape(await allSessions(range, { keyId: keyIds[0] }))).toEqual(expected.filter((e) => e.key_id === keyIds[0]));
      expect(shape(await allSessions(range, { session: 'shared-session-id', keyId: keyIds[1] }))).toEqual(expected.filter((e) => e.key_id === keyIds[1]));
    });

    it("sessions: a Claude Code session's subagents nested under its main agent, with their own sums", async () => {
      const list = inRange(FROM, TO);
      const withSubagents = expectedSessions(list).find((s) => s.rows.some((r) => r.parentAgentId))!;
      const [page] = [await opened.stores.reader.sessions!({ from: FROM, to: TO }, { session: withSubagents.session_id }, 10, null)];
      const [session] = page.data;
      const main = `${withSubagents.session_id}-main`;
      expect(session.agents.map((a) => a.agent_id)).toEqual([main]);
      const [root] = session.agents;
      expect(root).toMatchObject({ parent_agent_id: null, requests: withSubagents.rows.filter((r) => r.agentId === main).length });
      const subagents = [...new Set(withSubagents.rows.filter((r) => r.parentAgentId === main).map((r) => r.agentId!))];
      expect(root.subagents.map((a) => a.agent_id).sort()).toEqual(subagents.sort());
      for (const sub of root.subagents) {
        expect(sub).toMatchObject({ parent_agent_id: main, requests: withSubagents.rows.filter((r) => r.agentId === sub.agent_id).length, subagents: [] });
      }
    });

    it('sessions: each with its requests and cost per request class (null for requests that said none), the costliest class first', async () => {
      const expected = expectedSessions(inRange(DAYS_10.from, DAYS_10.to));
      const seen = await allSessions(DAYS_10, {});
      let classified = 0;
      for (const [i, session] of seen.entries()) {
        const byClass = new Map<string | null, UsageRecord[]>();
        for (const r of expected[i].rows) byClass.set(r.requestClass ?? null, [...(byClass.get(r.requestClass ?? null) ?? []), r]);
        expect(session.classes!.map((c) => c.request_class).sort()).toEqual([...byClass.keys()].sort());
        for (const entry of session.classes!) {
          const mine = byClass.get(entry.request_class)!;
          expect(entry).toMatchObject({ requests: mine.length, errors: mine.filter((r) => r.status >= 400).length, prompt_tokens: sum(mine, (r) => r.promptTokens), completion_tokens: sum(mine, (r) => r.completionTokens) });
          expect(entry.cost_usd).toBeCloseTo(sum(mine, (r) => r.costUsd), 9);
        }
        expect(session.classes!.map((c) => c.cost_usd)).toEqual([...session.classes!.map((c) => c.cost_usd)].sort((a, b) => b - a));
        if (session.classes!.some((c) => c.request_class === 'compaction')) classified++;
      }
      expect(classified).toBeGreaterThan(0);
    });

    it('the Usage tables per model, provider and key: sums, failed attempts and latency percentiles', async () => {
      const list = inRange(FROM, TO);
      const bucket = (ms: number) => Math.ceil(Math.log2(Math.max(ms, 1)) * 8);
      const percentile = (latencies: number[], p: number) => {
        if (latencies.length === 0) return null;
        const sorted = latencies.map(bucket).sort((a, b) => a - b);
        return Math.round(2 ** (sorted[Math.max(1, Math.ceil(p * sorted.length)) - 1] / 8) * 100) / 100;
      };
      const failedAttempts = list.flatMap((r) => (r.status >= 400 || r.attempts.length > 1 ? r.attempts.filter((a) => a.status !== 200 && a.error_type !== 'cancelled') : []));
      for (const groupBy of ['model', 'provider', 'key'] as const) {
        const groupOf = (r: UsageRecord) => (groupBy === 'key' ? r.keyId : groupBy === 'provider' ? r.provider : r.model === null ? null : `${r.provider}/${r.model}`);
        const breakdown = await opened.stores.reader.breakdown!({ from: FROM, to: TO }, groupBy);
        expect(breakdown.group_by).toBe(groupBy);
        const groups = new Set([...list.map(groupOf), ...(groupBy === 'key' ? [] : failedAttempts.map((a) => (groupBy === 'provider' ? a.provider : `${a.provider}/${a.model}`)))]);
        expect(breakdown.data).toHaveLength(groups.size);
        for (const group of groups) {
          const mine = list.filter((r) => groupOf(r) === group);
          const row = breakdown.data.find((d) => d.group === group)!;
          const errors =
            groupBy === 'key' || group === null
              ? mine.filter((r) => r.status >= 400).length
              : failedAttempts.filter((a) => (groupBy === 'provider' ? a.provider : `${a.provider}/${a.model}`) === group).length;
          const answered = mine.filter((r) => r.status < 400).map((r) => r.latencyMs);
          expect(row, String(group)).toMatchObject({
            key_name: groupBy === 'key' && group !== null ? `key ${keyIds.indexOf(group)}` : null,
            requests: mine.length,
            errors,
            prompt_tokens: sum(mine, (r) => r.promptTokens),
            completion_tokens: sum(mine, (r) => r.completionTokens),
            cache_read_tokens: sum(mine, (r) => r.cacheReadTokens ?? 0),
            p50_ms: percentile(answered, 0.5),
            p95_ms: percentile(answered, 0.95),
          });
          expect(row.cost_usd).toBeCloseTo(sum(mine, (r) => r.costUsd), 9);
        }
        const costs = breakdown.data.map((d) => d.cost_usd);
        expect(costs).toEqual([...costs].sort((a, b) => b - a));
      }
    });

    it('the request log filters by model (as asked, as served, provider/model), provider, key, status and session', async () => {
      const range = { from: FROM, to: FROM + 10 * DAY };
      const list = inRange(range.from, range.to);
      const everything = async (filter: LogFilter) => {
        const seen: string[] = [];
        let cursor: { ts: number; id: number } | null = null;
        for (let page = 0; page < 100; page++) {
          const result = await opened.stores.reader.requestLog(range, filter, 200, cursor);
          seen.push(...result.data.map((r) => r.request_id));
          if (!result.next_cursor) return seen;
          const [ts, id] = Buffer.from(result.next_cursor, 'base64url').toString().split('.').map(Number);
          cursor = { ts, id };
        }
        throw new Error('too many pages');
      };
      const expectIds = async (filter: LogFilter, test: (r: UsageRecord) => boolean) => {
        const expected = list.filter(test).map((r) => r.requestId);
        expect(expected.length, JSON.stringify(filter)).toBeGreaterThan(0);
        expect((await everything(filter)).sort()).toEqual(expected.sort());
      };
      await expectIds({ model: 'openai-model-2' }, (r) => r.model === 'openai-model-2' || r.requestedModel === 'openai-model-2' || r.requestedModel === 'openai-model-2:cost');
      await expectIds({ model: 'groq/groq-model-1' }, (r) => r.provider === 'groq' && r.model === 'groq-model-1');
      await expectIds({ provider: 'together', status: 'ok' }, (r) => r.provider === 'together' && r.status < 400);
      await expectIds({ keyId: keyIds[1], status: 429 }, (r) => r.keyId === keyIds[1] && r.status === 429);
      const session = list.find((r) => r.sessionId)!.sessionId!;
      await expectIds({ session }, (r) => r.sessionId === session);
      await expectIds({ session, status: 'error' }, (r) => r.sessionId === session && r.status >= 400);
    });

    it('every column of a row comes back: in the request detail and in the export', async () => {
      expect(await opened.stores.reader.request(rows[20].requestId)).toMatchObject({
        fallback: true,
        error_message: 'groq answered 500; served by openai',
        requested_model: 'openai-model-2:cost',
        attempts: rows[20].attempts,
      });
      const inSession = rows.find((r) => r.agentId && r.parentAgentId)!;
      expect(await opened.stores.reader.request(inSession.requestId)).toMatchObject({
        session_id: inSession.sessionId,
        session_source: inSession.sessionSource,
        agent_id: inSession.agentId,
        parent_agent_id: inSession.parentAgentId,
        cache_saved_usd: inSession.cacheSavedUsd,
        fallback: false,
        error_message: null,
      });
      const exported = await opened.stores.reader.rows(FROM, TO, 10_000);
      expect(exported).toHaveLength(rows.length);
      // The export's columns, in the same order on every backend (CSV headers).
      expect(Object.keys(exported[0])).toEqual(USAGE_EXPORT_COLUMNS);
      const row = exported.find((r) => r.request_id === rows[20].requestId)!;
      expect(row).toMatchObject({ fallback: 1, error_message: 'groq answered 500; served by openai', stream: rows[20].stream, attempts: rows[20].attempts, adjustments: null });
      const sessionRow = exported.find((r) => r.request_id === inSession.requestId)!;
      expect(sessionRow).toMatchObject({ session_id: inSession.sessionId, agent_id: inSession.agentId, parent_agent_id: inSession.parentAgentId, session_source: inSession.sessionSource });
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
