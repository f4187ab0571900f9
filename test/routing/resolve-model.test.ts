import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../core/catalog/load-catalog.ts';
import { parseConfig } from '../../core/config/load-config.ts';
import { parseFallbackHeader, resolveModel } from '../../core/routing/resolve-model.ts';

const config = parseConfig({ providers: { ollama: { baseUrl: 'http://127.0.0.1:11434/v1' } } }, null);
const catalog = loadCatalog(config.providers);
const ids = (model: string) => resolveModel(model, catalog, config.providers).endpoints.map((e) => e.id);

describe('resolveModel', () => {
  it.each([
    ['openai/gpt-4o', ['openai/gpt-4o'], true, undefined],
    ['together/meta-llama/Llama-3.3-70B-Instruct-Turbo', ['together/meta-llama/Llama-3.3-70B-Instruct-Turbo'], true, undefined],
    ['llama-3.3-70b', ['groq/llama-3.3-70b-versatile', 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo'], false, undefined],
    ['llama-3.3-70b:cost', ['groq/llama-3.3-70b-versatile', 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo'], false, 'cost'],
    ['groq/openai/gpt-oss-120b:round-robin', ['groq/openai/gpt-oss-120b'], true, 'round-robin'],
    ['text-embedding-3-small', ['openai/text-embedding-3-small'], false, undefined],
    ['ollama/llama3:8b', ['ollama/llama3:8b'], true, undefined],
  ])('%s', (model, expected, pinned, strategy) => {
    const resolved = resolveModel(model, catalog, config.providers);
    expect(resolved.endpoints.map((e) => e.id)).toEqual(expected);
    expect(resolved.pinned).toBe(pinned);
    expect(resolved.strategy).toBe(strategy);
  });

  it("keeps Patchbay's nine aliases, adds the newest families', and serves the open models by two providers", () => {
    const before = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4-5', 'claude-haiku-4-5', 'gemini-2.5-pro', 'gemini-2.5-flash', 'llama-3.3-70b', 'llama-3.1-8b', 'gpt-oss-120b'];
    expect([...catalog.aliases.keys()]).toEqual(expect.arrayContaining([...before, 'claude-opus', 'claude-sonnet', 'claude-haiku', 'gemini-3-pro']));
    const shared = [...catalog.aliases].filter(([, targets]) => new Set(targets.map((t) => t.split('/')[0])).size >= 2).map(([name]) => name);
    expect(shared).toEqual(expect.arrayContaining(['llama-3.3-70b', 'llama-3.1-8b', 'gpt-oss-120b', 'gpt-oss-20b']));
    for (const alias of catalog.aliases.keys()) expect(ids(alias).length).toBeGreaterThan(0);
  });

  it.each([
    ['gpt-9000', 404, 'model_not_found'],
    ['gpt-4o:fastest', 400, 'invalid_strategy'],
  ])('refuses %s', (model, status, code) => {
    expect(() => resolveModel(model, catalog, config.providers)).toThrow(expect.objectContaining({ status, code }));
  });

  it('parses the fallback header in order, ignoring blanks', () => {
    expect(parseFallbackHeader(' openai/gpt-4o, ,groq/llama-3.1-8b-instant ')).toEqual(['openai/gpt-4o', 'groq/llama-3.1-8b-instant']);
    expect(parseFallbackHeader(undefined)).toEqual([]);
  });
});
