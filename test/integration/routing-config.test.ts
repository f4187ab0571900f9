import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { TogetherEmulator } from '../emulators/together-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';

const KEYS = { OPENAI_API_KEY: 'sk-test-chain-openai', GROQ_API_KEY: 'gsk-test-chain-groq' };

describe('fallback chains, custom aliases, explained routes and user-defined providers, changed live through /api', () => {
  const openai = new OpenAiEmulator({ apiKey: KEYS.OPENAI_API_KEY });
  const groq = new GroqEmulator({ apiKey: KEYS.GROQ_API_KEY });
  const local = new TogetherEmulator({ apiKey: 'lab-secret' });
  const urls = { openai: '', groq: '', local: '' };
  let pb: TestPatchbay | undefined;

  beforeAll(async () => {
    urls.openai = `${await openai.start()}/v1`;
    urls.groq = `${await groq.start()}/openai/v1`;
    urls.local = `${await local.start()}/v1`;
  });
  afterEach(async () => {
    await pb?.stop();
    pb = undefined;
    for (const emulator of [openai, groq, local]) emulator.clearFaults();
  });
  afterAll(async () => {
    await Promise.all([openai.close(), groq.close(), local.close()]);
  });

  const start = async (routing?: Record<string, unknown>) => {
    // Together is configured (so its models resolve) but has no key: it shows up as skipped.
    pb = await startPatchbay({ config: { providers: { openai: { baseUrl: urls.openai }, groq: { baseUrl: urls.groq }, together: { baseUrl: urls.local } }, routing }, env: { ...KEYS, LAB_KEY: 'lab-secret' } });
    return pb;
  };
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${pb!.patchbay.url}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${pb!.patchbay.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  const chat = async (model: string, headers?: Record<string, string>) => {
    const { data, response } = await pb!.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }] }, { headers }).withResponse();
    return { provider: response.headers.get('x-patchbay-provider'), reason: response.headers.get('x-patchbay-route-reason'), model: data.model };
  };
  const failure = (model: string, headers?: Record<string, string>) => chat(model, headers).then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);

  it('a configured chain is tried after the model fails, with both attempts recorded; the header, when sent, wins', async () => {
    await start({ fallbacks: { 'gpt-4o-mini': ['groq/llama-3.3-70b-versatile'] } });
    openai.inject({ path: '/chat/completions', status: 500 });
    const answer = await chat('gpt-4o-mini');
    expect(answer.provider).toBe('groq');
    expect(answer.reason).toContain('fallback chain groq/llama-3.3-70b-versatile');
    const row = usageRows(pb!.patchbay).at(-1)!;
    expect((row.attempts as { provider: string; status: number }[]).map((a) => [a.provider, a.status])).toEqual([
      ['openai', 500],
      ['groq', 200],
    ]);
    // The header replaces the configured chain: together has no key, so nothing is left to try.
    openai.inject({ path: '/chat/completions', status: 500 });
    const error = await failure('gpt-4o-mini', { 'X-Patchbay-Fallback': 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo' });
    expect(error?.status).toBe(502);
  });

  it('routes a provider\'s own model id as tools send it, and answers a typo with a 404 naming close matches', async () => {
    await start();
    const native = await chat('llama-3.3-70b-versatile');
    expect(native.provider).toBe('groq');
    expect(native.reason).toMatch(/^pinned to groq\/llama-3\.3-70b-versatile/);
    const error = await failure('llama-3.3-70b-versatil');
    expect(error?.status).toBe(404);
    expect(error?.message).toContain('Did you mean "llama-3.3-70b-versatile"');
  });

  it('a pinned provider/model falls back only through a chain configured for exactly that id', async () => {
    await start({ fallbacks: { 'gpt-4o-mini': ['groq/llama-3.3-70b-versatile'] } });
    openai.inject({ path: '/chat/completions', status: 500 });
    expect((await failure('openai/gpt-4o-mini'))?.status).toBe(502);
    const put = await api('PUT', '/routing', { fallbacks: { 'openai/gpt-4o-mini': ['groq/llama-3.3-70b-versatile'] } });
    expect(put.status).toBe(200);
    expect(put.body.fallbacks).toEqual({ 'openai/gpt-4o-mini': ['groq/llama-3.3-70b-versatile'] });
    openai.inject({ path: '/chat/completions', status: 500 });
    expect((await chat('openai/gpt-4o-mini')).provider).toBe('groq');
    // The chain for the unpinned name was replaced with the whole map.
    openai.inject({ path: '/chat/completions', status: 500 });
    expect((await failure('gpt-4o-mini'))?.status).toBe(502);
  });

  it('a custom alias is saved to the config file, listed in /v1/models with the capabilities all members share, and routed at once', async () => {
    await start();
    expect((await failure('my-coder'))?.status).toBe(404);
    const put = await api('PUT', '/routing', { aliases: { 'my-coder': ['openai/gpt-4o-mini', 'groq/llama-3.3-70b-versatile'] } });
    expect(put.status).toBe(200);
    const saved = JSON.parse(readFileSync(join(pb!.dataDir, 'config.json'), 'utf8'));
    expect(saved.routing.aliases).toEqual({ 'my-coder': ['openai/gpt-4o-mini', 'groq/llama-3.3-70b-versatile'] });
    const answer = await chat('my-coder:round-robin');
    expect(['openai', 'groq']).toContain(answer.provider);
    expect(answer.reason).toMatch(/^custom alias my-coder; round-robin chose /);
    const listed = (await pb!.client.models.list()).data.find((m) => m.id === 'my-coder') as unknown as { endpoints: string[]; capabilities: Record<string, boolean> };
    expect(listed.endpoints).toEqual(['openai/gpt-4o-mini', 'groq/llama-3.3-70b-versatile']);
    // gpt-4o-mini reads images, llama-3.3-70b-versatile does not: the alias does not claim it.
    expect(listed.capabilities).toMatchObject({ chat: true, tools: true, images: false });
  });

  it('refuses an alias or chain that names an unknown model with a 400 naming the field, and leaves the config as it was', async () => {
    await start({ aliases: { mine: ['openai/gpt-4o-mini'] } });
    const before = readFileSync(join(pb!.dataDir, 'config.json'), 'utf8');
    const bad = await api('PUT', '/routing', { aliases: { mine: ['openai/gpt-4o-mini', 'openai/gpt-nonexistent'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('routing.aliases.mine[1]');
    expect(bad.body.error.message).toContain('gpt-nonexistent');
    const badChain = await api('PUT', '/routing', { fallbacks: { 'gpt-4o-mini': ['no-such-model'] } });
    expect(badChain).toMatchObject({ status: 400, body: { error: { param: 'routing.fallbacks.gpt-4o-mini[0]' } } });
    const badName = await api('PUT', '/routing', { aliases: { 'has/slash': ['openai/gpt-4o-mini'] } });
    expect(badName.status).toBe(400);
    expect(readFileSync(join(pb!.dataDir, 'config.json'), 'utf8')).toBe(before);
    expect((await chat('mine')).provider).toBe('openai');
  });

  it('explains a route: ranked candidates with score parts, and skipped endpoints with their reasons', async () => {
    await start();
    expect((await api('PATCH', '/providers/groq', { enabled: false })).status).toBe(200);
    const { status, body } = await api('POST', '/routing/explain', { model: 'llama-3.3-70b', strategy: 'balanced' });
    expect(status).toBe(200);
    expect(body.candidates).toEqual([]);
    expect(body.skipped).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ provider: 'groq', code: 'disabled', reason: 'groq is disabled in the config' }),
        expect.objectContaining({ provider: 'together', code: 'no_key' }),
      ]),
    );
    await api('PATCH', '/providers/groq', { enabled: true });
    // A routed request carries the same explanation in its route reason (header and usage row).
    expect((await chat('llama-3.3-70b')).reason).toMatch(/^alias llama-3\.3-70b; balanced chose groq\/llama-3\.3-70b-versatile; skipped together\/meta-llama\/Llama-3\.3-70B-Instruct-Turbo \(no_key\)$/);
    const ranked = await api('POST', '/routing/explain', { model: 'gpt-4o-mini', prompt_tokens: 1000, max_tokens: 100 });
    const [first] = ranked.body.candidates;
    expect(first).toMatchObject({ rank: 1, endpoint: 'openai/gpt-4o-mini', group: 'gpt-4o-mini' });
    const { latency, cost, availability } = first.parts;
    expect(latency.weight + cost.weight + availability.weight).toBeCloseTo(1);
    expect(first.score).toBeCloseTo(latency.value * latency.weight + cost.value * cost.weight + availability.value * availability.weight);
    expect(first.expected_cost_usd).toBeCloseTo((1000 * 0.15 + 100 * 0.6) / 1e6);
    // Explaining takes no round-robin turn: two explains, then a request, still start at the first endpoint.
    const needs = await api('POST', '/routing/explain', { model: 'llama-3.3-70b', needs: ['images'] });
    expect(needs.body.skipped.map((s: { code: string }) => s.code)).toContain('capability_missing');
    const unknown = await api('POST', '/routing/explain', { model: 'nope' });
    expect(unknown.status).toBe(404);
  });

  it('adds a user-defined provider, discovers its models, routes to it, and removes it (refused while an alias names it)', async () => {
    await start();
    const added = await api('POST', '/providers', { name: 'lab', baseUrl: urls.local, apiKeyEnv: 'LAB_KEY', models: [{ id: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', contextWindow: 8192, inputPrice: 0.1 }] });
    expect(added).toMatchObject({ status: 200, body: { name: 'lab', builtin: false } });
    const discovered = await api('POST', '/providers/lab/discover');
    expect(discovered.status).toBe(200);
    expect(discovered.body.models.map((m: { id: string }) => m.id)).toContain('meta-llama/Llama-3.3-70B-Instruct-Turbo');
    expect((await chat('lab/meta-llama/Llama-3.3-70B-Instruct-Turbo')).provider).toBe('lab');
    const models = await api('GET', '/models');
    expect(models.body.data).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'lab/meta-llama/Llama-3.3-70B-Instruct-Turbo', context_window: 8192, input_price: 0.1 })]));
    expect((await api('POST', '/providers', { name: 'lab', baseUrl: urls.local })).status).toBe(409);

    await api('PUT', '/routing', { aliases: { lab2: ['lab/meta-llama/Llama-3.3-70B-Instruct-Turbo'] } });
    const refused = await api('DELETE', '/providers/lab');
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('routing.aliases.lab2[0]');
    await api('PUT', '/routing', { aliases: {} });
    expect((await api('DELETE', '/providers/lab')).status).toBe(204);
    expect((await failure('lab/meta-llama/Llama-3.3-70B-Instruct-Turbo'))?.status).toBe(404);
    expect((await api('DELETE', '/providers/openai')).status).toBe(400);

    const unreachable = await api('POST', '/providers', { name: 'gone', baseUrl: 'http://127.0.0.1:9/v1' });
    expect(unreachable.status).toBe(200);
    const failed = await api('POST', '/providers/gone/discover');
    expect(failed.status).toBe(502);
    expect(failed.body.error.message).toMatch(/^Could not list gone's models: .*could not reach the provider.*Check that it runs/);
  });
});

describe('pausing routing', () => {
  it('answers 503 routing_paused with a message saying how to resume, until resumed; not saved to the config file', async () => {
    const openai = new OpenAiEmulator({ apiKey: 'sk-test-pause' });
    const url = `${await openai.start()}/v1`;
    const pb = await startPatchbay({ config: { providers: { openai: { baseUrl: url } } }, env: { OPENAI_API_KEY: 'sk-test-pause' } });
    try {
      const put = (paused: boolean) =>
        fetch(`${pb.patchbay.url}/api/routing`, { method: 'PUT', headers: { authorization: `Bearer ${pb.patchbay.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ paused }) }).then((r) => r.json() as Promise<{ paused: boolean }>);
      expect((await put(true)).paused).toBe(true);
      const error = await pb.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).then(() => null, (e: InstanceType<typeof OpenAI.APIError>) => e);
      expect(error?.status).toBe(503);
      expect(error?.code).toBe('routing_paused');
      expect(error?.message).toMatch(/paused.*Resume it from the tray/);
      expect(openai.count('/chat/completions')).toBe(0);
      expect(usageRows(pb.patchbay).at(-1)).toMatchObject({ status: 503, error_type: 'routing_paused' });
      expect(JSON.parse(readFileSync(join(pb.dataDir, 'config.json'), 'utf8')).routing).toBeUndefined();
      expect((await put(false)).paused).toBe(false);
      const answer = await pb.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
      expect(answer.choices[0].message.content).toBeTruthy();
    } finally {
      await pb.stop();
      await openai.close();
    }
  });
});
