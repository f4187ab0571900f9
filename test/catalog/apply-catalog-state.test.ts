import { describe, expect, it } from 'vitest';
import { loadCatalog, readShippedCatalog } from '../../core/catalog/load-catalog.ts';
import { parseConfig } from '../../core/config/load-config.ts';
import { applyCatalogState } from '../../core/management/apply-catalog-state.ts';
import { applyRoutingConfig } from '../../core/routing/apply-routing-config.ts';
import { resolveModel } from '../../core/routing/resolve-model.ts';

describe('an updated catalog in force without a restart', () => {
  it('refills the catalog the router holds, keeps the user aliases resolved, and moves the revision', () => {
    const config = parseConfig({ routing: { aliases: { mine: ['openai/gpt-4o', 'claude-opus'] } } }, null);
    const catalog = loadCatalog(config.providers);
    applyRoutingConfig(catalog, config);
    const held = catalog;
    const shipped = readShippedCatalog();
    const cheaper = { ...shipped, pricesAsOf: '2026-11-29', endpoints: shipped.endpoints.map((e) => (e.model === 'gpt-4o' ? { ...e, inputPrice: 2 } : e)) };
    const revision = config.revision;
    applyCatalogState({ config, catalog }, { data: cheaper, discovered: new Map([['openai', [{ id: 'gpt-6.2-sol' }]]]) });
    expect(held.pricesAsOf).toBe('2026-11-29');
    expect(held.endpoints.get('openai/gpt-4o')?.inputPrice).toBe(2);
    expect(held.endpoints.get('openai/gpt-6.2-sol')).toMatchObject({ priceUnknown: true });
    expect(resolveModel('gpt-6.2-sol', held, config.providers).endpoints.map((e) => e.id)).toEqual(['openai/gpt-6.2-sol']);
    expect(held.customAliases.get('mine')?.map((e) => [e.id, e.inputPrice])).toEqual([['openai/gpt-4o', 2], ['anthropic/claude-opus-5-5', 4]]);
    expect(config.revision).toBe(revision + 1);
  });
});
