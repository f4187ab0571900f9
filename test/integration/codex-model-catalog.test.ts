import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRig, type Rig } from '../helpers/conformance-matrix.ts';

/**
 * GET /v1/codex/models, the model catalog Codex fetches from its provider's model_catalog_url
 * (`?client_version=`, with the Patchbay key as Bearer): what it says of each model decides whether
 * Codex offers apply_patch, when it compacts and which reasoning levels it shows. The real Codex
 * reading it is tested in test/agents/codex-catalog.test.ts.
 */

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(() => rig.stop());

async function catalog(headers: Record<string, string> = { authorization: `Bearer ${rig.pb.key}` }) {
  const response = await fetch(`${rig.pb.patchbay.url}/v1/codex/models?client_version=0.171.0`, { headers });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe('GET /v1/codex/models', () => {
  it('describes every model with tools as Codex does its own: window, reasoning levels, apply_patch as the freeform tool', async () => {
    const { status, body } = await catalog();
    expect(status).toBe(200);
    const bySlug = new Map<string, Record<string, any>>(body.models.map((m: Record<string, any>) => [m.slug, m]));
    const claude = bySlug.get('anthropic/claude-haiku-4-5-20251001')!;
    expect(claude).toMatchObject({
      context_window: 200_000,
      default_reasoning_level: 'medium',
      apply_patch_tool_type: 'freeform',
      shell_type: 'unified_exec',
      supports_reasoning_summaries: true,
      supports_parallel_tool_calls: true,
      input_modalities: ['text', 'image'],
      visibility: 'list',
      upgrade: null,
    });
    expect(claude.supported_reasoning_levels.map((l: { effort: string }) => l.effort)).toEqual(['low', 'medium', 'high', 'xhigh']);
    expect(claude.base_instructions).toContain('apply_patch');
    expect(claude.base_instructions).toContain('anthropic/claude-haiku-4-5-20251001');
    // A model that does not reason offers no levels; one without images takes text only.
    expect(bySlug.get('groq/llama-3.3-70b-versatile')).toMatchObject({ supported_reasoning_levels: [], input_modalities: ['text'], context_window: 131_072, apply_patch_tool_type: 'freeform' });
    expect(bySlug.get('groq/llama-3.3-70b-versatile')).not.toHaveProperty('default_reasoning_level');
    // Aliases too, with the smallest window of their members; no embedding or completion-only models.
    expect(bySlug.get('llama-3.3-70b')).toMatchObject({ context_window: 131_072 });
    expect(bySlug.has('openai/text-embedding-3-small')).toBe(false);
    expect(bySlug.has('openai/gpt-3.5-turbo-instruct')).toBe(false);
    // Unique slugs: Codex refuses a catalog that repeats one.
    expect(new Set(body.models.map((m: { slug: string }) => m.slug)).size).toBe(body.models.length);
  });

  it('asks for the Patchbay key like every /v1 call', async () => {
    const missing = await catalog({});
    expect(missing.status).toBe(401);
    expect(missing.body.error.message).toContain('Patchbay key');
    expect((await catalog({ authorization: 'Bearer pb-wrong' })).status).toBe(401);
  });
});
