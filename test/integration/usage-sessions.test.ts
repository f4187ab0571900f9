import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageRecord } from '../../core/usage/usage-record.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

/** What a session cost, with its subagents, through the API the Sessions page reads. */
describe('GET /api/usage/sessions and /api/usage/requests?session=ID', () => {
  let pb: TestPatchbay;
  const api = async (path: string) => {
    const response = await fetch(`${pb.patchbay.url}/api${path}`, { headers: { authorization: `Bearer ${pb.patchbay.adminToken}` } });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const now = Date.now();
  const today = new Date(now).toISOString().slice(0, 10);
  const row = (n: number, extra: Partial<UsageRecord>): UsageRecord => ({
    ts: now - 10_000 + n, requestId: `req_sessions_${n}`, keyId: null, endpoint: 'chat', requestedModel: 'llama-3.3-70b', provider: 'groq', model: 'llama-3.3-70b-versatile',
    strategy: 'balanced', status: 200, errorType: null, stream: true, promptTokens: 1000, completionTokens: 100, totalTokens: 1100, inputPrice: 0.59, outputPrice: 0.79,
    costUsd: 0.001, latencyMs: 100, firstByteMs: 50, attempts: [], ...extra,
  });

  beforeAll(async () => {
    pb = await startPatchbay();
    const cc = { sessionId: 'cc-1', sessionSource: 'claude-code' };
    const rows = [
      row(1, { ...cc, agentId: 'main', cacheReadTokens: 800, cacheSavedUsd: 0.0004 }),
      row(2, { ...cc, agentId: 'main', cacheReadTokens: 900, cacheSavedUsd: 0.0005 }),
      row(3, { ...cc, agentId: 'explore', parentAgentId: 'main' }),
      row(4, { ...cc, agentId: 'explore-deep', parentAgentId: 'explore', provider: 'together', model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', status: 502, errorType: 'all_providers_failed', costUsd: 0 }),
      row(5, { sessionId: 'batch-7', sessionSource: 'patchbay', provider: 'openai', model: 'gpt-4o-mini', cacheWrite5mTokens: 50 }),
      row(6, {}),
    ];
    for (const r of rows) pb.patchbay.usage.record(r);
    pb.patchbay.usage.flush();
  });
  afterAll(() => pb?.stop());

  it('lists sessions, most recently active first, with sums, models, providers, what caching saved, and agents nested under their parent', async () => {
    const { status, body } = await api('/usage/sessions');
    expect(status).toBe(200);
    expect(body.next_cursor).toBeNull();
    expect(body.data.map((s: { session_id: string }) => s.session_id)).toEqual(['batch-7', 'cc-1']);
    const cc = body.data[1];
    expect(cc).toMatchObject({
      client: 'claude-code', requests: 4, errors: 1, prompt_tokens: 4000, completion_tokens: 400, cache_read_tokens: 1700,
      models: ['llama-3.3-70b-versatile', 'meta-llama/Llama-3.3-70B-Instruct-Turbo'], providers: ['groq', 'together'],
      first_ts: new Date(now - 9_999).toISOString(), last_ts: new Date(now - 9_996).toISOString(),
    });
    expect(cc.cost_usd).toBeCloseTo(0.003);
    expect(cc.cache_saved_usd).toBeCloseTo(0.0009);
    expect(cc.agents).toMatchObject([
      { agent_id: 'main', requests: 2, parent_agent_id: null, subagents: [{ agent_id: 'explore', requests: 1, subagents: [{ agent_id: 'explore-deep', errors: 1, subagents: [] }] }] },
    ]);
    expect(body.data[0]).toMatchObject({ client: 'patchbay', cache_write_tokens: 50, agents: [] });
  });

  it('takes the request log’s filters and pages by cursor', async () => {
    const ids = async (query: string) => (await api(`/usage/sessions?${query}`)).body.data.map((s: { session_id: string }) => s.session_id);
    expect(await ids('provider=together')).toEqual(['cc-1']);
    expect(await ids('model=gpt-4o-mini')).toEqual(['batch-7']);
    expect(await ids('status=error')).toEqual(['cc-1']);
    expect(await ids('status=502')).toEqual(['cc-1']);
    expect(await ids('status=429')).toEqual([]);
    expect(await ids(`from=${today}&to=${today}`)).toEqual(['batch-7', 'cc-1']);
    expect(await ids('from=2020-01-01&to=2020-01-31')).toEqual([]);
    const first = await api('/usage/sessions?limit=1');
    expect(first.body.data.map((s: { session_id: string }) => s.session_id)).toEqual(['batch-7']);
    const second = await api(`/usage/sessions?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((s: { session_id: string }) => s.session_id)).toEqual(['cc-1']);
    expect(second.body.next_cursor).toBeNull();
    const bad = await api('/usage/sessions?cursor=nonsense');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ param: 'cursor' });
  });

  it('opens a session to its requests, newest first, each with its agent', async () => {
    const { status, body } = await api('/usage/requests?session=cc-1');
    expect(status).toBe(200);
    expect(body.data.map((r: { request_id: string }) => r.request_id)).toEqual(['req_sessions_4', 'req_sessions_3', 'req_sessions_2', 'req_sessions_1']);
    expect(body.data[1]).toMatchObject({ session_id: 'cc-1', session_source: 'claude-code', agent_id: 'explore', parent_agent_id: 'main' });
    expect((await api('/usage/log?session=batch-7')).body.data).toHaveLength(1);
    expect((await api('/usage/requests?session=nobody')).body.data).toEqual([]);
    const tooLong = await api(`/usage/requests?session=${'x'.repeat(129)}`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toMatchObject({ param: 'session' });
  });
});
