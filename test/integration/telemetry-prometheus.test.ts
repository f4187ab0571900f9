import OpenAI from 'openai';
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { TogetherEmulator } from '../emulators/together-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';
import { startPrometheus, waitFor, type RunningPrometheus } from '../helpers/start-prometheus.ts';

const KEYS = { GROQ_API_KEY: 'gsk-test-prom-groq', TOGETHER_API_KEY: 'tg-test-prom-together' };
const ALIAS = 'llama-3.3-70b';

describe("Prometheus metrics: GET /metrics behind its own token, scraped by Debian's prometheus and queried with PromQL", () => {
  const groq = new GroqEmulator({ apiKey: KEYS.GROQ_API_KEY });
  const together = new TogetherEmulator({ apiKey: KEYS.TOGETHER_API_KEY });
  const urls = { groq: '', together: '' };
  let pb: TestPatchbay | undefined;
  let prometheus: RunningPrometheus | undefined;

  beforeAll(async () => {
    urls.groq = `${await groq.start()}/openai/v1`;
    urls.together = `${await together.start()}/v1`;
  });
  afterEach(async () => {
    await prometheus?.stop();
    prometheus = undefined;
    await pb?.stop();
    pb = undefined;
  });
  afterAll(async () => {
    await Promise.all([groq.close(), together.close()]);
  });

  const start = (prometheusSettings?: Record<string, unknown>) =>
    startPatchbay({
      config: { providers: { groq: { baseUrl: urls.groq }, together: { baseUrl: urls.together } }, routing: { strategy: 'cost' }, ...(prometheusSettings ? { telemetry: { prometheus: prometheusSettings } } : {}) },
      env: KEYS,
    });
  const scrape = (url: string, token?: string) => fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('is never open by default: no /metrics without telemetry.prometheus, and with it only for its own token', async () => {
    pb = await start();
    expect((await scrape(`${pb.patchbay.url}/metrics`, pb.patchbay.adminToken)).status).toBe(404);
    await pb.stop();
    pb = await start({ enabled: true });
    const tokenFile = join(pb.dataDir, 'metrics-token');
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const token = readFileSync(tokenFile, 'utf8').trim();
    for (const wrong of [undefined, pb.patchbay.adminToken, pb.key, `${token}x`]) {
      const answer = await scrape(`${pb.patchbay.url}/metrics`, wrong);
      expect(answer.status).toBe(401);
      expect(await answer.text()).toContain('metrics-token');
    }
    const ok = await scrape(`${pb.patchbay.url}/metrics`, token);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toContain('text/plain');
    expect(pb.patchbay.telemetry.status().prometheus).toEqual({ url: `${pb.patchbay.url}/metrics`, tokenFile });
  });

  it('on its own listen address: served there (still with its token), not on the API port', async () => {
    const port = await freePort();
    pb = await start({ enabled: true, host: '127.0.0.1', port });
    const token = readFileSync(join(pb.dataDir, 'metrics-token'), 'utf8').trim();
    expect((await scrape(`${pb.patchbay.url}/metrics`, token)).status).toBe(404);
    expect((await scrape(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
    expect((await scrape(`http://127.0.0.1:${port}/metrics`, token)).status).toBe(200);
    expect(pb.patchbay.telemetry.status().prometheus?.url).toBe(`http://127.0.0.1:${port}/metrics`);
  });

  it('Prometheus scrapes a running Patchbay; PromQL counts its requests, errors, fallbacks, cap refusals, tokens and cost by provider, model and key', async () => {
    pb = await start({ enabled: true });
    const chat = (client: OpenAI, extra: Record<string, unknown> = {}) =>
      client.chat.completions.create({ model: ALIAS, messages: [{ role: 'user', content: 'count me' }], ...extra } as never).then(
        () => 200,
        (error: { status: number }) => error.status,
      );
    // Three answered by groq (the cheaper), one fallback to together, one failure, one cap refusal.
    for (let i = 0; i < 3; i++) expect(await chat(pb.client)).toBe(200);
    groq.inject({ path: '/chat/completions', status: 500 });
    expect(await chat(pb.client)).toBe(200);
    groq.inject({ path: '/chat/completions', status: 500 });
    together.inject({ path: '/chat/completions', status: 503 });
    expect(await chat(pb.client)).toBe(502);
    const capped = await pb.patchbay.management.createKey({ name: 'capped', monthly_token_cap: 5 });
    expect(await chat(new OpenAI({ baseURL: `${pb.patchbay.url}/v1`, apiKey: capped.secret, maxRetries: 0 }), { max_tokens: 50 })).toBe(429);

    const { port } = new URL(pb.patchbay.url);
    prometheus = await startPrometheus({ host: '127.0.0.1', port: Number(port), tokenFile: join(pb.dataDir, 'metrics-token') });
    const total = async () => (await prometheus!.query('sum(patchbay_requests_total)'))[0]?.value;
    await waitFor(async () => (await total()) === 6, 30_000, () => `no scrape with 6 requests; targets: ${JSON.stringify(prometheus?.output().slice(-2000))}`);
    expect((await prometheus.targets())[0]).toMatchObject({ health: 'up', lastError: '' });

    const by = async (promql: string, label: string) => Object.fromEntries((await prometheus!.query(promql)).map((s) => [s.labels[label], s.value]));
    expect(await by('sum by (gen_ai_provider_name) (patchbay_requests_total{http_response_status_code="200"})', 'gen_ai_provider_name')).toEqual({ groq: 3, together: 1 });
    expect(await by('sum by (error_type) (patchbay_errors_total)', 'error_type')).toEqual({ all_providers_failed: 1, insufficient_quota: 1 });
    expect((await prometheus.query('sum(patchbay_fallbacks_total)'))[0].value).toBe(1);
    expect(await by('sum by (patchbay_key_id) (patchbay_cap_refusals_total)', 'patchbay_key_id')).toEqual({ [capped.key.id]: 1 });
    const defaultKey = (await pb.patchbay.management.listKeys()).find((k) => k.name === 'default')!.id;
    expect(await by('sum by (patchbay_key_id) (patchbay_requests_total)', 'patchbay_key_id')).toEqual({ [defaultKey]: 5, [capped.key.id]: 1 });
    // The GenAI client metrics: one token.usage record per answered request and token type, a duration per request.
    expect(await by('sum by (gen_ai_token_type) (gen_ai_client_token_usage_count)', 'gen_ai_token_type')).toEqual({ input: 4, output: 4 });
    expect((await prometheus.query('sum(gen_ai_client_operation_duration_count)'))[0].value).toBe(6);
    expect((await prometheus.query('sum(patchbay_cost_total)'))[0].value).toBeGreaterThan(0);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
