import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCatalogStore } from '../../core/catalog/catalog-store.ts';
import { loadCatalog, readShippedCatalog } from '../../core/catalog/load-catalog.ts';
import { parseConfig } from '../../core/config/load-config.ts';
import { CatalogUpdater, type CatalogState } from '../../core/management/catalog-updater.ts';
import { AnthropicEmulator } from '../emulators/anthropic-emulator.ts';
import { GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { EMULATOR_CHAT_MODELS, OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { TogetherEmulator } from '../emulators/together-emulator.ts';

const KEYS: Record<string, string> = { openai: 'sk-upd-openai', anthropic: 'sk-ant-upd', google: 'gem-upd', groq: 'gsk-upd', together: 'tg-upd' };
const snapshot = JSON.parse(readFileSync(new URL('../../core/catalog/sources/genai-prices.json', import.meta.url), 'utf8')) as { id: string; models: Record<string, unknown>[] }[];

/** The pinned table as the next day's would be: a new model, a price cut. */
function tomorrowsTable() {
  const table = structuredClone(snapshot);
  const openai = table.find((p) => p.id === 'openai')!;
  openai.models.push({ id: 'gpt-6.2-sol', match: { or: [{ equals: 'gpt-6.2-sol' }, { regex: '^gpt-6\\.2-sol-\\d{4}-\\d{2}-\\d{2}$' }] }, context_window: 1050000, prices: { input_mtok: 3, output_mtok: 15, cache_read_mtok: 0.3 } });
  const anthropic = table.find((p) => p.id === 'anthropic')!;
  const opus = anthropic.models.find((m) => m.id === 'claude-opus-5-5')!;
  opus.prices = { input_mtok: 3, output_mtok: 15, cache_read_mtok: 0.3, cache_write_mtok: 3.75 };
  return table;
}

describe('keeping the catalog current while Patchbay runs', () => {
  let tables: Server;
  let base: string;
  const served: Record<string, unknown> = {
    '/prices.json': tomorrowsTable(),
    '/truncated.json': snapshot.filter((p) => p.id === 'anthropic'),
    '/half.json': snapshot.map((p) => ({ ...p, models: p.id === 'openai' ? p.models.slice(0, 10) : p.models })),
    '/free.json': snapshot.map((p) => ({ ...p, models: p.models.map((m) => ({ ...m, prices: { input_mtok: 0, output_mtok: 0 } })) })),
    '/not-a-table.json': [{ id: 'openai', models: [{ id: 'gpt-x', match: { equals: 'gpt-x' }, prices: { input_mtok: 'free' } }] }],
  };
  const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-updater-'));
  const logs: string[] = [];
  const states: CatalogState[] = [];
  const providers = parseConfig({}, null).providers;
  const updater = new CatalogUpdater({
    dataDir,
    store: new FileCatalogStore(dataDir, (l) => logs.push(l)),
    url: () => `${base}/prices.json`,
    providers: () => providers,
    secret: () => undefined,
    connectTimeoutMs: () => 2000,
    log: (l) => logs.push(l),
    changed: (state) => states.push(state),
    discoverEveryMs: 0,
  });

  beforeAll(async () => {
    tables = createServer((req, res) => {
      const body = served[req.url ?? ''];
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json', 'last-modified': 'Sun, 29 Nov 2026 06:00:00 GMT', etag: '"abc123"' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => tables.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(tables.address() as AddressInfo).port}`;
    await updater.start();
  });
  afterAll(async () => {
    updater.stop();
    await new Promise((resolve) => tables.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a table that drops most models, prices them at 0 or is not a table, and keeps the catalog in use', async () => {
    const refusal = (path: string) =>
      updater.update(`${base}${path}`).then(
        () => ({ message: 'taken', status: 200, code: 'taken' }),
        (error: Error & { status: number; code: string }) => error,
      );
    expect(await refusal('/truncated.json')).toMatchObject({ status: 422, code: 'catalog_refused' });
    expect((await refusal('/truncated.json')).message).toMatch(/was refused: it has no openai, google, groq, together entries/);
    expect((await refusal('/half.json')).message).toMatch(/lists \d+ openai models where the current catalog lists 43/);
    expect((await refusal('/free.json')).message).toMatch(/at 0/);
    expect((await refusal('/not-a-table.json')).message).toMatch(/not a genai-prices table: 0\.models\.0\.prices/);
    expect(updater.current.data).toBe(readShippedCatalog());
    expect(existsSync(join(dataDir, 'catalog.json'))).toBe(false);
    expect(states).toHaveLength(0);
  });

  it('offline: says so in one line and keeps what it has', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await updater.update(`http://127.0.0.1:${port}/prices.json`).catch((e: Error & { offline: boolean }) => e);
    expect(error).toMatchObject({ offline: true, code: 'catalog_unreachable' });
    expect((error as Error).message).toMatch(/^Could not fetch the price table from .* \(ECONNREFUSED\): offline\? Keeping the catalog in use\.$/);
    expect((error as Error).message).not.toContain('\n');
    expect(updater.current.data.pricesAsOf).toBe('2026-09-23');
  });

  it('fetches the newest table, writes it atomically to the data dir, and hands the new catalog on without a restart', async () => {
    const update = await updater.update();
    expect(update.summary).toMatch(/^97 models, prices as of 2026-11-29: 1 added \(openai\/gpt-6\.2-sol\), 0 removed, 1 prices changed$/);
    expect(states.at(-1)?.data.pricesAsOf).toBe('2026-11-29');
    const catalog = loadCatalog(providers, states.at(-1)!.data);
    expect(catalog.endpoints.get('openai/gpt-6.2-sol')).toMatchObject({ inputPrice: 3, outputPrice: 15, contextWindow: 1050000 });
    expect(catalog.endpoints.get('anthropic/claude-opus-5-5')).toMatchObject({ inputPrice: 3, outputPrice: 15 });
    expect(catalog.sources[0]).toMatchObject({ name: 'pydantic/genai-prices', version: 'abc123', date: '2026-11-29', url: `${base}/prices.json` });
    // What a restart reads: the data dir's catalog (no temporary file left beside it).
    const restarted = new CatalogUpdater({ ...updaterDeps(), store: new FileCatalogStore(dataDir, () => undefined) });
    expect((await restarted.start()).data.pricesAsOf).toBe('2026-11-29');
    expect(restarted.status()).toMatchObject({ prices_as_of: '2026-11-29', updated: true });
    expect(readFileSync(join(dataDir, 'catalog.json'), 'utf8')).toContain('"gpt-6.2-sol"');
  });

  function updaterDeps() {
    return { dataDir, url: () => undefined, providers: () => providers, secret: () => undefined, connectTimeoutMs: () => 2000, log: () => undefined, changed: () => undefined, discoverEveryMs: 0 };
  }
});

describe("reading each provider's own model list", () => {
  const openai = new OpenAiEmulator({ apiKey: KEYS.openai, chatModels: [...EMULATOR_CHAT_MODELS, 'gpt-6.2-sol', 'gpt-5.1-2025-11-13'] });
  const anthropic = new AnthropicEmulator({ apiKey: KEYS.anthropic });
  const gemini = new GeminiEmulator({ apiKey: KEYS.google });
  const groq = new GroqEmulator({ apiKey: KEYS.groq });
  const together = new TogetherEmulator({ apiKey: KEYS.together });
  const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-discovery-'));
  const logs: string[] = [];
  let providers: ReturnType<typeof parseConfig>['providers'];
  let secrets: Record<string, string>;
  let updater: CatalogUpdater;

  beforeAll(async () => {
    const [o, a, g, q, t] = await Promise.all([openai.start(), anthropic.start(), gemini.start(), groq.start(), together.start()]);
    providers = parseConfig({ providers: { openai: { baseUrl: `${o}/v1` }, anthropic: { baseUrl: `${a}/v1` }, google: { baseUrl: `${g}/v1beta` }, groq: { baseUrl: `${q}/openai/v1` }, together: { baseUrl: `${t}/v1` } } }, null).providers;
    secrets = { ...KEYS };
    updater = new CatalogUpdater({
      dataDir,
      store: new FileCatalogStore(dataDir, () => undefined),
      url: () => undefined,
      providers: () => providers,
      secret: (p) => secrets[p.name],
      connectTimeoutMs: () => 2000,
      log: (l) => logs.push(l),
      changed: () => undefined,
      discoverEveryMs: 0,
    });
    await updater.start();
  });
  afterAll(async () => {
    updater.stop();
    await Promise.all([openai.close(), anthropic.close(), gemini.close(), groq.close(), together.close()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists what each keyed provider serves; a model no table prices is usable with its price unknown', async () => {
    await updater.discover();
    const { data, discovered } = updater.current;
    expect([...discovered.keys()].sort()).toEqual(['anthropic', 'google', 'groq', 'openai', 'together']);
    expect(discovered.get('anthropic')?.find((m) => m.id === 'claude-sonnet-4-5-20250929')).toMatchObject({ contextWindow: 200000, maxOutput: 64000 });
    expect(discovered.get('google')?.find((m) => m.id === 'gemini-embedding-001')).toMatchObject({ kind: 'embeddings' });
    expect(discovered.get('together')?.find((m) => m.id === 'BAAI/bge-base-en-v1.5')).toMatchObject({ kind: 'embeddings', contextWindow: 512 });
    expect(discovered.get('groq')?.find((m) => m.id === 'openai/gpt-oss-120b')).toMatchObject({ contextWindow: 131072, maxOutput: 65536 });
    const catalog = loadCatalog(providers, data, discovered);
    expect(catalog.endpoints.get('openai/gpt-6.2-sol')).toMatchObject({ priceUnknown: true });
    expect(catalog.endpoints.get('openai/gpt-5.1-2025-11-13')).toMatchObject({ inputPrice: 1.25 });
    expect(updater.status().discovered.map((d) => `${d.provider} ${d.models}`).sort()).toEqual([...discovered].map(([p, models]) => `${p} ${models.length}`).sort());
    expect(logs).toEqual([]);
  });

  it('caches the lists in the data dir: a restart has them before any provider answers', async () => {
    const restarted = new CatalogUpdater({ dataDir, store: new FileCatalogStore(dataDir, () => undefined), url: () => undefined, providers: () => new Map(), secret: () => undefined, connectTimeoutMs: () => 2000, log: () => undefined, changed: () => undefined, discoverEveryMs: 0 });
    const state = await restarted.start();
    expect(state.discovered.get('openai')?.map((m) => m.id)).toContain('gpt-6.2-sol');
  });

  it('a provider that refuses keeps its last list, and says so once', async () => {
    const before = updater.current.discovered.get('openai')!.length;
    secrets.openai = 'sk-wrong';
    await updater.discover();
    await updater.discover();
    expect(logs.filter((l) => l.includes('openai'))).toEqual(["Model discovery: Could not list openai's models: it answered HTTP 401 to GET /models; set its API key first. Keeping its last list."]);
    expect(updater.current.discovered.get('openai')?.map((m) => m.id)).toContain('gpt-6.2-sol');
    expect(updater.status().discovered.find((d) => d.provider === 'openai')).toMatchObject({ models: before, error: expect.stringContaining('HTTP 401') });
  });
});
