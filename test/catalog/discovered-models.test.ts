import { describe, expect, it } from 'vitest';
import type { CatalogData } from '../../core/catalog/catalog-schema.ts';
import { checkCatalogUpdate } from '../../core/catalog/check-catalog-update.ts';
import { endpointForProviderModel } from '../../core/catalog/discovered-endpoints.ts';
import { isLaterVersion } from '../../core/catalog/find-priced-model.ts';
import { loadCatalog, readShippedCatalog } from '../../core/catalog/load-catalog.ts';
import { parseConfig } from '../../core/config/load-config.ts';

const providers = parseConfig({}, null).providers;
const shipped = readShippedCatalog();

describe('models the providers list beyond the table', () => {
  const discovered = new Map([
    ['openai', [{ id: 'gpt-6.2-sol' }, { id: 'gpt-5.1-2025-11-13' }, { id: 'dall-e-3' }, { id: 'gpt-4o' }]],
    ['anthropic', [{ id: 'claude-sonnet-5-5', contextWindow: 1_000_000, maxOutput: 128_000 }, { id: 'claude-opus-4-5-20251101', contextWindow: 200_000, maxOutput: 64_000 }]],
    ['google', [{ id: 'gemini-3-pro-preview', kind: 'chat' as const, contextWindow: 1_048_576, maxOutput: 65_536 }, { id: 'veo-4', kind: 'other' as const }, { id: 'gemini-embedding-3', kind: 'embeddings' as const, contextWindow: 8192 }]],
  ]);
  const catalog = loadCatalog(providers, shipped, discovered);

  it('lists a model no table has with its price unknown and the window its provider gives', () => {
    expect(catalog.endpoints.get('openai/gpt-6.2-sol')).toMatchObject({ priceUnknown: true, inputPrice: 0, outputPrice: 0, contextWindow: 0 });
    expect(catalog.endpoints.get('anthropic/claude-sonnet-5-5')).toMatchObject({ priceUnknown: true, contextWindow: 1_000_000, maxOutput: 128_000 });
    expect([...catalog.endpoints.get('anthropic/claude-sonnet-5-5')!.capabilities]).toEqual(expect.arrayContaining(['chat', 'tools', 'images', 'streaming']));
    expect([...catalog.endpoints.get('google/gemini-embedding-3')!.capabilities]).toEqual(['embeddings']);
  });

  it("prices a listed dated snapshot by the table's rules, fills a window the tables left unknown, and leaves out non-chat models", () => {
    expect(catalog.endpoints.get('openai/gpt-5.1-2025-11-13')).toMatchObject({ inputPrice: 1.25, outputPrice: 10 });
    expect(catalog.endpoints.get('openai/gpt-5.1-2025-11-13')?.priceUnknown).toBeUndefined();
    expect(catalog.endpoints.get('google/gemini-3-pro-preview')).toMatchObject({ inputPrice: 2, contextWindow: 1_048_576, maxOutput: 65_536 });
    expect(catalog.endpoints.has('openai/dall-e-3')).toBe(false);
    expect(catalog.endpoints.has('google/veo-4')).toBe(false);
    // A listed model keeps its own facts.
    expect(catalog.endpoints.get('openai/gpt-4o')).toEqual(loadCatalog(providers).endpoints.get('openai/gpt-4o'));
  });

  it('a price set in the config for a discovered model prices it', () => {
    const priced = loadCatalog(parseConfig({ providers: { openai: { models: [{ id: 'gpt-6.2-sol', inputPrice: 3, outputPrice: 12 }] } } }, null).providers, shipped, discovered);
    expect(priced.endpoints.get('openai/gpt-6.2-sol')).toMatchObject({ inputPrice: 3, outputPrice: 12 });
    expect(priced.endpoints.get('openai/gpt-6.2-sol')?.priceUnknown).toBeFalsy();
  });

  it('a provider-prefixed id nobody lists is still an endpoint of that provider, unpriced', () => {
    const plain = loadCatalog(providers);
    expect(endpointForProviderModel(plain, 'openai', 'gpt-7-preview')).toMatchObject({ id: 'openai/gpt-7-preview', priceUnknown: true });
    expect(endpointForProviderModel(plain, 'anthropic', 'claude-opus-5-5-20261101')).toMatchObject({ inputPrice: 4 });
  });

  it('does not stretch a rule to a later version (starts_with claude-sonnet-5 is not claude-sonnet-5-5)', () => {
    expect(isLaterVersion('claude-sonnet-5', 'claude-sonnet-5-5')).toBe(true);
    expect(isLaterVersion('claude-opus-5-5', 'claude-opus-5-5-20261101')).toBe(false);
    expect(isLaterVersion('gpt-5.1', 'gpt-5.1-2025-11-13')).toBe(false);
    expect(isLaterVersion('gemini-2.5-pro', 'gemini-2.5-pro-preview-06-05')).toBe(false);
  });
});

describe('checkCatalogUpdate', () => {
  const without = (data: CatalogData, keep: (e: CatalogData['endpoints'][number]) => boolean): CatalogData => ({ ...data, endpoints: data.endpoints.filter(keep) });

  it('takes a table that adds models and drops a few', () => {
    expect(checkCatalogUpdate(shipped, without(shipped, (e) => e.model !== 'gpt-4o'))).toBeNull();
  });

  it('refuses a table that drops most models, or most of one provider', () => {
    expect(checkCatalogUpdate(shipped, without(shipped, (e) => e.provider === 'openai'))).toMatch(/drops most models/);
    expect(checkCatalogUpdate(shipped, without(shipped, (e) => e.provider !== 'anthropic' || e.model.startsWith('claude-opus-5')))).toMatch(/anthropic models/);
  });

  it('refuses a table that prices models at 0', () => {
    const zero = { ...shipped, endpoints: shipped.endpoints.map((e) => ({ ...e, inputPrice: 0, outputPrice: 0 })) };
    expect(checkCatalogUpdate(shipped, zero)).toMatch(/at 0/);
    const one = { ...shipped, endpoints: shipped.endpoints.map((e) => (e.model === 'gpt-4o' ? { ...e, inputPrice: 0 } : e)) };
    expect(checkCatalogUpdate(shipped, one)).toMatch(/openai\/gpt-4o at 0/);
  });
});
