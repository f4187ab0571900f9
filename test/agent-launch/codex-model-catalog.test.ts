import { describe, expect, it } from 'vitest';
import { mapCodexModelCatalog } from '../../core/agents/codex-model-catalog.ts';
import type { Capability, Endpoint } from '../../core/catalog/load-catalog.ts';

const endpoint = (id: string, contextWindow: number, capabilities: Capability[]): Endpoint => {
  const [provider, ...model] = id.split('/');
  return { id, provider, model: model.join('/'), inputPrice: 1, outputPrice: 2, contextWindow, maxOutput: 8192, nativeCompletions: false, capabilities: new Set(capabilities) };
};

const CLAUDE = endpoint('anthropic/claude-x', 200_000, ['chat', 'tools', 'images', 'reasoning', 'streaming']);
const LLAMA = endpoint('groq/llama-x', 131_072, ['chat', 'tools', 'streaming']);
const EMBED = endpoint('openai/embed-x', 8192, ['embeddings']);

describe('mapCodexModelCatalog', () => {
  it('an alias says what every member can do, with the smallest window', () => {
    const { models } = mapCodexModelCatalog([{ id: 'mixed', endpoints: [CLAUDE, LLAMA] }]);
    expect(models).toHaveLength(1);
    expect(models[0]).toMatchObject({ slug: 'mixed', context_window: 131_072, supported_reasoning_levels: [], input_modalities: ['text'], supports_reasoning_summaries: false });
    expect(models[0]).not.toHaveProperty('default_reasoning_level');
  });

  it('leaves out what Codex cannot work with (no chat or no tools, or no endpoint at all); priorities follow the order', () => {
    const { models } = mapCodexModelCatalog([
      { id: EMBED.id, endpoints: [EMBED] },
      { id: CLAUDE.id, endpoints: [CLAUDE] },
      { id: 'empty', endpoints: [] },
      { id: LLAMA.id, endpoints: [LLAMA] },
    ]);
    expect(models.map((m) => [m.slug, m.priority])).toEqual([[CLAUDE.id, 1], [LLAMA.id, 2]]);
    expect(models[0]).toMatchObject({ default_reasoning_level: 'medium', apply_patch_tool_type: 'freeform', input_modalities: ['text', 'image'] });
  });
});
