import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../core/catalog/load-catalog.ts';
import { parseConfig } from '../../core/config/load-config.ts';
import { applyRoutingConfig } from '../../core/routing/apply-routing-config.ts';
import { resolveModel } from '../../core/routing/resolve-model.ts';
import { listModels } from '../../core/http/v1/list-models.ts';

function setup(routing: Record<string, unknown> = {}) {
  const config = parseConfig({ routing }, null);
  const catalog = loadCatalog(config.providers);
  applyRoutingConfig(catalog, config);
  return { config, catalog, resolve: (model: string) => resolveModel(model, catalog, config.providers) };
}

describe('model ids as tools send them', () => {
  it.each([
    ['claude-sonnet-4-5-20250929', 'anthropic/claude-sonnet-4-5-20250929'],
    ['claude-haiku-4-5-20251001', 'anthropic/claude-haiku-4-5-20251001'],
    ['gpt-4.1', 'openai/gpt-4.1'],
    ['gemini-2.5-flash-lite', 'google/gemini-2.5-flash-lite'],
    ['llama-3.3-70b-versatile', 'groq/llama-3.3-70b-versatile'],
    ['meta-llama/Llama-3.3-70B-Instruct-Turbo', 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo'],
  ])('%s resolves to the one provider that serves it (%s)', (model, endpoint) => {
    const resolved = setup().resolve(model);
    expect(resolved.endpoints.map((e) => e.id)).toEqual([endpoint]);
    expect(resolved.pinned).toBe(true);
  });

  it('keeps a strategy suffix on a native id', () => {
    expect(setup().resolve('gpt-4.1:cost')).toMatchObject({ strategy: 'cost', endpoints: [{ id: 'openai/gpt-4.1' }] });
  });

  it('an id two providers serve needs a prefix or an alias: the 404 names each choice', () => {
    let error: { status: number; message: string } | undefined;
    try {
      setup().resolve('openai/gpt-oss-120b');
    } catch (e) {
      error = e as { status: number; message: string };
    }
    expect(error?.status).toBe(404);
    expect(error?.message).toContain('"groq/openai/gpt-oss-120b"');
    expect(error?.message).toContain('"together/openai/gpt-oss-120b"');
  });

  it('a mistyped id gets a 404 that lists the close matches', () => {
    expect(() => setup().resolve('claude-sonet-4-5')).toThrow(/Did you mean "claude-sonnet-4-5"/);
    expect(() => setup().resolve('gpt-4.2')).toThrow(/Did you mean .*"gpt-4\.1"/);
  });

  it("a provider-prefixed id nobody lists goes to that provider, which answers for it (issue 33: Patchbay does not refuse what the provider might serve)", () => {
    expect(setup().resolve('anthropic/claude-sonet-4-5')).toMatchObject({ pinned: true, endpoints: [{ id: 'anthropic/claude-sonet-4-5', priceUnknown: true }] });
    // A dated id the table's rules price keeps the table's price.
    expect(setup().resolve('anthropic/claude-sonnet-4-5').endpoints[0]).toMatchObject({ id: 'anthropic/claude-sonnet-4-5', inputPrice: 3 });
    // A bare dated id the rules give to one provider goes there.
    expect(setup().resolve('gpt-5.1-2025-11-13').endpoints.map((e) => e.id)).toEqual(['openai/gpt-5.1-2025-11-13']);
  });

  it('a custom alias can take a Claude id and send it to another provider (Claude Code without an Anthropic key)', () => {
    const { resolve } = setup({ aliases: { 'claude-sonnet-4-5-20250929': ['groq/llama-3.3-70b-versatile'] } });
    expect(resolve('claude-sonnet-4-5-20250929').endpoints.map((e) => e.id)).toEqual(['groq/llama-3.3-70b-versatile']);
  });

  it('GET /v1/models lists auto with the endpoints its tiers choose from', () => {
    const { catalog, config } = setup();
    const auto = listModels(catalog, config, 0).find((m) => m.id === 'auto');
    expect(auto?.owned_by).toBe('patchbay');
    expect(auto?.endpoints).toEqual(expect.arrayContaining(['openai/gpt-4o-mini', 'anthropic/claude-sonnet-4-5-20250929']));
    expect(auto?.capabilities.tools).toBe(true);
  });
});
