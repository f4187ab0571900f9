import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

const UPSTREAM_KEY = 'sk-test-usage-api-upstream';

describe('the usage API the dashboard reads (/api/usage/*, /api/status)', () => {
  const emulator = new OpenAiEmulator({ apiKey: UPSTREAM_KEY });
  let pb: TestPatchbay;
  const api = async (path: string) => {
    const response = await fetch(`${pb.patchbay.url}/api${path}`, { headers: { authorization: `Bearer ${pb.patchbay.adminToken}` } });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const today = () => new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    const upstream = await emulator.start();
    pb = await startPatchbay({ config: { providers: { openai: { baseUrl: `${upstream}/v1` } } }, env: { OPENAI_API_KEY: UPSTREAM_KEY } });
    emulator.inject({ status: 400, path: 'chat', message: 'bad request from upstream' });
    await pb.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'first' }] }).catch(() => undefined);
    for (let i = 0; i < 3; i++) await pb.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hello ${i}` }] });
  });
  afterAll(async () => {
    await pb?.stop();
    await emulator.close();
  });

  it('totals and series count the requests just made; the series names keys', async () => {
    const totals = await api(`/usage/totals?from=${today()}&to=${today()}`);
    expect(totals.status).toBe(200);
    expect(totals.body).toMatchObject({ requests: 4, errors: 1 });
    expect(totals.body.total_tokens).toBeGreaterThan(0);
    const byKey = await api(`/usage/series?bucket=hour&group_by=key&from=${today()}&to=${today()}`);
    expect(byKey.body.data.reduce((sum: number, p: { requests: number }) => sum + p.requests, 0)).toBe(4);
    expect(byKey.body.data[0]).toMatchObject({ key_name: 'default', bucket: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}$/) });
    const byModel = await api('/usage/series?group_by=model');
    expect(byModel.body.data.map((p: { group: string }) => p.group).sort()).toEqual(['openai/gpt-4o', 'openai/gpt-4o-mini']);
    const latency = await api('/usage/latency');
    expect(latency.body.data).toEqual([expect.objectContaining({ day: today(), provider: 'openai', requests: 4, errors: 1, error_rate: 0.25 })]);
    expect(latency.body.data[0].p50_ms).toBeGreaterThan(0);
  });

  it('the request log filters and pages; one request shows its attempts and route reason', async () => {
    const errors = await api('/usage/log?status=error');
    expect(errors.body.data).toHaveLength(1);
    expect(errors.body.data[0]).toMatchObject({ status: 400, requested_model: 'gpt-4o' });
    const first = await api('/usage/log?limit=2&status=ok');
    expect(first.body.data).toHaveLength(2);
    const second = await api(`/usage/log?limit=2&status=ok&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ next_cursor: null });
    expect(second.body.data.map((r: { request_id: string }) => r.request_id)).not.toContain(first.body.data[1].request_id);
    expect([...first.body.data, ...second.body.data].map((r: { requested_model: string }) => r.requested_model)).toEqual(['gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o-mini']);
    const one = await api(`/usage/log/${first.body.data[0].request_id}`);
    expect(one.body).toMatchObject({ request_id: first.body.data[0].request_id, key_name: 'default', attempts: [expect.objectContaining({ provider: 'openai', status: 200 })] });
    expect(one.body.route_reason).toMatch(/gpt-4o-mini/);
    const missing = await api('/usage/log/req_nope');
    expect(missing).toMatchObject({ status: 404, body: { error: { code: 'request_not_found', param: 'request_id' } } });
  });

  it('bad query parameters get a 400 naming the parameter', async () => {
    for (const [query, param] of [
      ['/usage/totals?from=2026-13-01', 'from'],
      ['/usage/totals?from=2026-02-30', 'from'],
      ['/usage/totals?from=2026-11-10&to=2026-11-01', 'to'],
      ['/usage/series?bucket=week', 'bucket'],
      ['/usage/series?bucket=hour&from=2026-01-01&to=2026-01-08', 'bucket'],
      ['/usage/series?group_by=colour', 'group_by'],
      ['/usage/log?status=bad', 'status'],
      ['/usage/log?limit=0', 'limit'],
      ['/usage/log?cursor=garbage', 'cursor'],
      ['/usage/log?provider=a&provider=b', 'provider'],
      ['/usage/log?colour=red', ''],
    ]) {
      const { status, body } = await api(query);
      expect(status, query).toBe(400);
      expect(body.error.type).toBe('invalid_request_error');
      if (param) expect(body.error.param, query).toBe(param);
    }
  });

  it('/api/status gives the base URL and each provider with its breaker and health over the window', async () => {
    const { body } = await api('/status');
    expect(body.base_url).toBe(`${pb.patchbay.url}/v1`);
    const openai = body.providers.find((p: { name: string }) => p.name === 'openai');
    // Every attempt counts, the upstream's 400 included (as in /usage/latency): the breaker stays closed, the error rate says 1 in 4, and the last error is kept.
    expect(openai).toMatchObject({ enabled: true, key_source: 'env', breaker: 'closed', samples: 4, error_rate: 0.25, last_error: { status: 400, model: 'gpt-4o' } });
    expect(openai.latency_p50_ms).toBeGreaterThan(0);
    expect(body.providers.find((p: { name: string }) => p.name === 'anthropic')).toMatchObject({ samples: 0, latency_p50_ms: null, error_rate: null });
  });
});
