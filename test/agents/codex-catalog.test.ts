import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Rig } from '../helpers/conformance-matrix.ts';
import { PROVIDERS, callsSince, codexEvents, mark, providersReached, readmeCodexConfig, rowsSince, startAgentRig, toolNames, type ProviderCase } from './agent-rig.ts';
import { CODEX_BIN, CODEX_VERSION, agentsInstalled, baseEnv, createWorkspace, jsonLines, run, type Workspace } from './run-agent.ts';

/**
 * Codex with Patchbay's model catalog (the README's config.toml: `model_catalog_url` pointing at
 * GET /v1/codex/models) on every provider. Without it Codex knows nothing of a model id that is
 * not OpenAI's and offers no apply_patch; with it Codex takes the window and reasoning levels from
 * Patchbay and offers apply_patch as its freeform (custom) tool, which it then applies.
 */

let rig: Rig;
beforeAll(async () => {
  rig = await startAgentRig();
});
afterAll(() => rig?.stop());

describe.skipIf(!agentsInstalled).each(PROVIDERS.map((p) => [p.name, p] as [string, ProviderCase]))(`Codex ${CODEX_VERSION} with Patchbay's model catalog via %s`, (name, provider) => {
  let workspace: Workspace;
  let codexHome: string;
  beforeAll(() => {
    workspace = createWorkspace(`codex-catalog-${name}`);
    codexHome = join(workspace.home, '.codex');
    mkdirSync(codexHome);
    writeFileSync(join(codexHome, 'config.toml'), readmeCodexConfig(rig.pb.patchbay.url, provider.chat));
  });
  afterAll(() => workspace?.remove());
  const env = () => ({ ...baseEnv(workspace.home), CODEX_HOME: codexHome, PATCHBAY_KEY: rig.pb.key });

  it('reads the model from Patchbay: its window, reasoning levels and apply_patch as the freeform tool', async () => {
    const out = await run(CODEX_BIN, ['debug', 'models'], { cwd: workspace.project, env: env() });
    expect(out.code, out.stderr).toBe(0);
    const entry = (JSON.parse(out.stdout) as { models: Record<string, any>[] }).models.find((m) => m.slug === provider.chat);
    const served = rig.pb.patchbay.catalog.endpoints.get(provider.chat)!;
    expect(entry).toMatchObject({ context_window: served.contextWindow, apply_patch_tool_type: 'freeform' });
    expect(entry!.supported_reasoning_levels.length > 0).toBe(served.capabilities.has('reasoning'));
  });

  it('offers apply_patch as a freeform tool and applies the patch the model wrote', async () => {
    const at = await mark(rig);
    const line = `hello from ${name} ${Math.random().toString(36).slice(2, 8)}`;
    const raw = await run(CODEX_BIN, ['exec', '--json', '--skip-git-repo-check', '--sandbox', 'workspace-write', `Create the file notes.txt holding the line \`${line}\` with apply_patch.`], { cwd: workspace.project, env: env() });
    const out = codexEvents(raw.stdout);
    expect(out.failed, raw.stdout + raw.stderr).toBeUndefined();
    expect(readFileSync(join(workspace.project, 'notes.txt'), 'utf8')).toBe(`${line}\n`);
    const change = jsonLines(raw.stdout).find((e) => e.type === 'item.completed' && e.item.type === 'file_change')?.item;
    expect(change).toMatchObject({ status: 'completed', changes: [{ kind: 'add' }] });

    expect(providersReached(rig, at)).toEqual({ [name]: 2 });
    const [first, second] = callsSince(rig, at, provider.name);
    expect(toolNames(first.body)).toContain('apply_patch');
    // OpenAI takes the freeform tool as Codex wrote it; the others get it as a function of one string.
    const tool = ((first.body as Record<string, any>).tools as Record<string, any>[]).find((t) => (t.name ?? t.function?.name ?? t.functionDeclarations?.[0]?.name) === 'apply_patch' || t.functionDeclarations?.some((d: { name: string }) => d.name === 'apply_patch'));
    if (name === 'openai') expect(tool).toMatchObject({ type: 'custom', format: { type: 'grammar' } });
    expect(JSON.stringify(second.body)).toContain('*** Add File: notes.txt');
    const rows = await rowsSince(rig, at);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toMatchObject({ endpoint: 'responses', provider: name, model: provider.servedChat, status: 200 });
  });
});
