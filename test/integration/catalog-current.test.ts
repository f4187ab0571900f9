import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runModelsCommand } from '../../core/cli/models-command.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicEmulator } from '../emulators/anthropic-emulator.ts';
import { GEMINI_MODELS, GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { GROQ_MODELS, GroqEmulator } from '../emulators/groq-emulator.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { TOGETHER_CHAT_MODELS, TogetherEmulator } from '../emulators/together-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

const KEYS = { OPENAI_API_KEY: 'sk-cat-openai', ANTHROPIC_API_KEY: 'sk-ant-cat', GEMINI_API_KEY: 'gem-cat', GROQ_API_KEY: 'gsk-cat', TOGETHER_API_KEY: 'tg-cat' };

// Models each provider serves that no price table has (newer than the table): the emulators list
// Anthropic's 5.5 tiers and gpt-6.1-sol / gpt-6.2-sol already; these join their lists for this file
// (each test file runs in its own process).
GEMINI_MODELS['gemini-4-pro-preview'] = { kind: 'chat', displayName: 'Gemini 4 Pro Preview', inputTokenLimit: 2097152, outputTokenLimit: 65536 };
GROQ_MODELS['moonshotai/kimi-k3'] = { ownedBy: 'Moonshot AI', created: 1764000000, contextWindow: 262144, maxCompletionTokens: 32768 };
TOGETHER_CHAT_MODELS['Qwen/Qwen4-235B'] = { created: 1764000000, context: 262144, organization: 'Qwen', price: [0.6, 1.2] };

/** The pinned genai-prices table with one change a later day brings: gpt-4o cheaper. */
const snapshot = JSON.parse(readFileSync(new URL('../../core/catalog/sources/genai-prices.json', import.meta.url), 'utf8')) as { id: string; models: { id: string; prices: unknown }[] }[];
const later = structuredClone(snapshot);
later.find((p) => p.id === 'openai')!.models.find((m) => m.id === 'gpt-4o')!.prices = { input_mtok: 2, output_mtok: 8, cache_read_mtok: 1 };

describe('a catalog that follows the providers: update, discovery, unknown prices, pass-through', () => {
  const openai = new OpenAiEmulator({ apiKey: KEYS.OPENAI_API_KEY });
  const anthropic = new AnthropicEmulator({ apiKey: KEYS.ANTHROPIC_API_KEY });
  const gemini = new GeminiEmulator({ apiKey: KEYS.GEMINI_API_KEY });
  const groq = new GroqEmulator({ apiKey: KEYS.GROQ_API_KEY });
  const together = new TogetherEmulator({ apiKey: KEYS.TOGETHER_API_KEY });
  let tables: Server;
  let pb: TestPatchbay;
  const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-catalog-current-'));
  const v1 = async (path: string, init: { method?: string; body?: unknown; key?: string; headers?: Record<string, string> } = {}) => {
    const response = await fetch(`${pb.patchbay.url}/v1${path}`, {
      method: init.method ?? (init.body ? 'POST' : 'GET'),
      headers: { authorization: `Bearer ${init.key ?? pb.key}`, 'content-type': 'application/json', ...init.headers },
      body: init.body ? JSON.stringify(init.body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${pb.patchbay.url}/api${path}`, { method, headers: { authorization: `Bearer ${pb.patchbay.adminToken}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
    return { status: response.status, body: (await response.json()) as any };
  };
  const chat = (model: string, key?: string) => v1('/chat/completions', { body: { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 }, key });
  const listed = async () => (await v1('/models')).body as { prices_as_of: string; data: { id: string; pricing?: { unknown?: true; input_per_million: number | null } }[] };

  beforeAll(async () => {
    tables = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json', 'last-modified': 'Sun, 29 Nov 2026 06:00:00 GMT' }).end(JSON.stringify(later)));
    await new Promise<void>((resolve) => tables.listen(0, '127.0.0.1', resolve));
    const [o, a, g, q, t] = await Promise.all([openai.start(), anthropic.start(), gemini.start(), groq.start(), together.start()]);
    pb = await startPatchbay({
      config: {
        providers: { openai: { baseUrl: `${o}/v1` }, anthropic: { baseUrl: `${a}/v1` }, google: { baseUrl: `${g}/v1beta` }, groq: { baseUrl: `${q}/openai/v1` }, together: { baseUrl: `${t}/v1` } },
        catalog: { url: `http://127.0.0.1:${(tables.address() as AddressInfo).port}/prices.json`, discoverEveryMinutes: 0 },
      },
      env: KEYS,
      dataDir,
      discovery: true,
    });
  });
  afterAll(async () => {
    await pb?.stop();
    await Promise.all([openai.close(), anthropic.close(), gemini.close(), groq.close(), together.close(), new Promise((resolve) => tables.close(resolve))]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("reads each provider's own model list at start: what no table prices is listed with its price unknown", async () => {
    await expect.poll(async () => (await listed()).data.filter((m) => m.pricing?.unknown).map((m) => m.id).sort(), { timeout: 30_000 }).toEqual([
      'anthropic/claude-haiku-5-5',
      'anthropic/claude-sonnet-5-5',
      'google/gemini-4-pro-preview',
      'groq/moonshotai/kimi-k3',
      'openai/gpt-6.1-sol',
      'openai/gpt-6.2-sol',
      'together/Qwen/Qwen4-235B',
    ]);
    const models = await listed();
    expect(models.prices_as_of).toBe('2026-09-23');
    expect(models.data.find((m) => m.id === 'openai/gpt-6.2-sol')?.pricing).toMatchObject({ input_per_million: null, output_per_million: null, unknown: true });
    expect(models.data.find((m) => m.id === 'google/gemini-4-pro-preview')).toMatchObject({ context_window: 2097152, max_output_tokens: 65536 });
    expect(models.data.find((m) => m.id === 'anthropic/claude-opus-5-5')?.pricing).toMatchObject({ input_per_million: 4, output_per_million: 20, as_of: '2026-09-23' });
  });

  it('serves a discovered model as provider/id and by its bare id; its usage row has no cost (null, not 0)', async () => {
    const pinned = await chat('openai/gpt-6.2-sol');
    expect(pinned.status).toBe(200);
    const bare = await chat('gpt-6.2-sol');
    expect(bare.status).toBe(200);
    const messages = await new Anthropic({ baseURL: pb.patchbay.url, apiKey: pb.key, maxRetries: 0 }).messages.create({ model: 'claude-sonnet-5-5', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] });
    expect(messages.model).toBe('claude-sonnet-5-5');
    const unpricedRows = async () => ((await api('GET', '/usage/log')).body.data as { model: string; cost_usd: number | null; price_unknown?: boolean }[]).filter((r) => r.model === 'gpt-6.2-sol' || r.model === 'claude-sonnet-5-5');
    await expect.poll(async () => (await unpricedRows()).length).toBe(3);
    const unpriced = await unpricedRows();
    for (const row of unpriced) expect(row).toMatchObject({ cost_usd: null, price_unknown: true });
  });

  it('a key with a USD cap refuses a model without a price: 403 naming the model and how to give it one', async () => {
    const { secret } = (await api('POST', '/keys', { name: 'capped', monthly_usd_cap: 5 })).body;
    const refused = await chat('openai/gpt-6.2-sol', secret);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'model_price_unknown', param: 'model' });
    expect(refused.body.error.message).toContain('"openai/gpt-6.2-sol" has no known price');
    expect(refused.body.error.message).toContain('providers.openai.models');
    expect((await chat('openai/gpt-4o', secret)).status).toBe(200);
  });

  it("sends a provider-prefixed id nobody lists to that provider; its own 404 comes back in the ingress's shape", async () => {
    const openaiShape = await chat('openai/gpt-7-experimental');
    expect(openaiShape.status).toBe(404);
    expect(openaiShape.body.error).toMatchObject({ code: 'model_not_found' });
    // OpenAI's own words (the emulator's, from its reference), not Patchbay's "not in Patchbay's catalog".
    expect(openaiShape.body.error.message).toContain('The model `gpt-7-experimental` does not exist or you do not have access to it.');
    const anthropicShape = await v1('/messages', { body: { model: 'anthropic/claude-nonesuch-9', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }, headers: { 'anthropic-version': '2023-06-01' } });
    expect(anthropicShape.status).toBe(404);
    expect(anthropicShape.body).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    expect(anthropicShape.body.error.message).toContain('model: claude-nonesuch-9');
  });

  it('updates the table while running: the router uses the new prices at once, and a restart keeps them', async () => {
    const update = await api('POST', '/catalog/update', {});
    expect(update.status).toBe(200);
    expect(update.body.summary).toMatch(/prices as of 2026-11-29: 0 added, 0 removed, 1 prices changed/);
    const models = await listed();
    expect(models.prices_as_of).toBe('2026-11-29');
    expect(models.data.find((m) => m.id === 'openai/gpt-4o')?.pricing).toMatchObject({ input_per_million: 2, output_per_million: 8, as_of: '2026-11-29' });
    expect((await api('GET', '/catalog')).body).toMatchObject({ prices_as_of: '2026-11-29', updated: true });
    // The CLI through the running server's /api.
    const out: string[] = [];
    expect(await runModelsCommand([], { out: (t) => out.push(t), err: (t) => out.push(t), env: { PATCHBAY_HOME: dataDir } })).toBe(0);
    expect(out.join('')).toMatch(/^Prices as of 2026-11-29 \(pydantic\/genai-prices [^)]+\), updated; USD per million tokens\.\n/);
    expect(out.join('')).toMatch(/openai\/gpt-6\.2-sol +unknown +unknown +unknown/);
    // A restart reads the updated catalog from the data dir.
    const config = JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8')) as unknown;
    await pb.stop();
    pb = await startPatchbay({ dataDir, config, env: KEYS });
    expect((await listed()).prices_as_of).toBe('2026-11-29');
  });
});
