import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Rig } from '../helpers/conformance-matrix.ts';
import { PROVIDERS, callsSince, codexEvents, mark, providersReached, readmeCodexConfig, rowsSince, startAgentRig, toolNames, type ProviderCase } from './agent-rig.ts';
import { CODEX_BIN, CODEX_VERSION, agentsInstalled, baseEnv, createWorkspace, run, type Workspace } from './run-agent.ts';

/**
 * Codex's code mode through every translated provider. For a model it knows (gpt-6.2-sol, its
 * default), Codex 0.171.0 declares its tools in an `additional_tools` input item and runs commands
 * through one freeform tool, `exec` in the `functions` namespace, into which the model writes
 * JavaScript calling `tools.exec_command`. A model catalog (`model_catalog_json`) whose entry says
 * the same of a Patchbay model (`tool_mode: "code_mode_only"`, `use_responses_lite`, as Codex's own
 * entry for gpt-6.2-sol does) makes Codex speak that way to any provider: the real Codex must then
 * read Patchbay's translated answer (a `custom_tool_call` with its namespace) and run it.
 */

let rig: Rig;
beforeAll(async () => {
  rig = await startAgentRig();
});
afterAll(() => rig?.stop());

/** The fields Codex 0.171.0 requires of a catalog entry, and those that turn code mode on. */
function codeModeEntry(slug: string): Record<string, unknown> {
  const level = (effort: string) => ({ effort, description: `${effort} reasoning` });
  return {
    slug,
    display_name: slug,
    base_instructions: 'You are Codex, a coding agent. Run shell commands through the exec tool.',
    supported_reasoning_levels: [level('low'), level('medium'), level('high')],
    shell_type: 'shell_command',
    visibility: 'list',
    supported_in_api: true,
    priority: 1,
    experimental_supported_tools: [],
    truncation_policy: { mode: 'tokens', limit: 10000 },
    support_verbosity: false,
    context_window: 128_000,
    tool_mode: 'code_mode_only',
    use_responses_lite: true,
    apply_patch_tool_type: 'freeform',
  };
}

describe.skipIf(!agentsInstalled).each(PROVIDERS.filter((p) => p.name !== 'openai').map((p) => [p.name, p] as [string, ProviderCase]))(`Codex ${CODEX_VERSION} in code mode via %s`, (name, provider) => {
  let workspace: Workspace;
  let codexHome: string;
  beforeAll(() => {
    workspace = createWorkspace(`codex-code-${name}`);
    codexHome = join(workspace.home, '.codex');
    mkdirSync(codexHome);
    writeFileSync(join(codexHome, 'catalog.json'), JSON.stringify({ models: [codeModeEntry(provider.chat)] }));
    // A top-level key, so before the README's [model_providers.patchbay] table.
    writeFileSync(join(codexHome, 'config.toml'), `model_catalog_json = ${JSON.stringify(join(codexHome, 'catalog.json'))}\n${readmeCodexConfig(rig.pb.patchbay.url, provider.chat)}`);
  });
  afterAll(() => workspace?.remove());

  it('runs a shell command through exec: offered as a function, called back as a custom_tool_call Codex runs, its output replayed', async () => {
    const at = await mark(rig);
    const raw = await run(CODEX_BIN, ['exec', '--json', '--skip-git-repo-check', `Run the shell command \`cat ${workspace.tokenFile}\` and tell me the token.`], { cwd: workspace.project, env: { ...baseEnv(workspace.home), CODEX_HOME: codexHome, PATCHBAY_KEY: rig.pb.key } });
    const out = codexEvents(raw.stdout);
    expect(out.failed, raw.stdout + raw.stderr).toBeUndefined();
    expect(out.events.filter((e) => e.type === 'item.completed' && e.item.type === 'error'), 'Codex read the catalog entry').toEqual([]);
    const command = out.events.find((e) => e.type === 'item.completed' && e.item.type === 'command_execution')?.item;
    expect(command).toMatchObject({ exit_code: 0, status: 'completed' });
    expect(command.aggregated_output).toContain(workspace.token);
    expect(out.messages.at(-1)).toBe(`The token is ${workspace.token}.`);

    expect(providersReached(rig, at)).toEqual({ [name]: 2 });
    const [first, second] = callsSince(rig, at, provider.name);
    // The additional_tools item's tools, flattened: exec among them, no item left in what the upstream got.
    expect(toolNames(first.body)).toContain('functions__exec');
    expect(JSON.stringify(first.body)).not.toContain('additional_tools');
    expect(JSON.stringify(first.body)).not.toContain(workspace.token);
    expect(JSON.stringify(second.body)).toContain('tools.exec_command');
    expect(JSON.stringify(second.body)).toContain(workspace.token);
    const rows = await rowsSince(rig, at);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toMatchObject({ endpoint: 'responses', provider: name, model: provider.servedChat, status: 200 });
  });
});
