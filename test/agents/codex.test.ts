import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Rig } from '../helpers/conformance-matrix.ts';
import { PROVIDERS, callsSince, codexEvents, expectInOrder, mainCalls, mark, providersReached, readmeCodexConfig, rowsSince, startAgentRig, toolNames, type ProviderCase } from './agent-rig.ts';
import { CODEX_BIN, agentsInstalled, baseEnv, createWorkspace, run, type Workspace } from './run-agent.ts';

/**
 * The real Codex CLI (`codex exec`, test/agents/package.json) with exactly the README's
 * config.toml (only the address and the model changed), against Patchbay in front of each
 * provider's emulator; the emulated model follows scripted-model.ts.
 */

let rig: Rig;
beforeAll(async () => {
  rig = await startAgentRig();
});
afterAll(() => rig?.stop());

const parse = codexEvents;

const word = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;

describe.skipIf(!agentsInstalled).each(PROVIDERS.map((p) => [p.name, p] as [string, ProviderCase]))('Codex CLI via %s', (name, provider) => {
  let workspace: Workspace;
  let codexHome: string;
  beforeAll(() => {
    workspace = createWorkspace(`codex-${name}`);
    codexHome = join(workspace.home, '.codex');
    mkdirSync(codexHome);
    writeFileSync(join(codexHome, 'config.toml'), readmeCodexConfig(rig.pb.patchbay.url, provider.chat));
  });
  afterAll(() => workspace?.remove());

  const codex = (args: string[]) =>
    run(CODEX_BIN, ['exec', ...args], { cwd: workspace.project, env: { ...baseEnv(workspace.home), CODEX_HOME: codexHome, PATCHBAY_KEY: rig.pb.key } });

  it('answers a text turn from the provider, with a usage row', async () => {
    const at = await mark(rig);
    const said = word('pineapple');
    const out = parse((await codex(['--json', '--skip-git-repo-check', `Say ${said}.`])).stdout);
    expect(out.failed, JSON.stringify(out.failed)).toBeUndefined();
    expect(out.messages).toEqual([said]);
    expect(providersReached(rig, at)).toEqual({ [name]: 1 });
    const [call] = callsSince(rig, at, provider.name);
    const offered = toolNames(call.body);
    expect(offered).toContain('exec_command');
    if (name === 'openai') {
      // Passed through as Codex sent it: the namespace and the built-in web search included.
      expect(offered).toEqual(expect.arrayContaining(['multi_agent_v1.spawn_agent', 'web_search']));
    } else {
      // Translated (needs lane agents-codex): the namespace's functions offered as ordinary tools, the web search left out.
      expect(offered.some((tool) => tool.includes('spawn_agent'))).toBe(true);
      expect(offered).not.toContain('web_search');
    }
    expect((await rowsSince(rig, at))).toMatchObject([{ endpoint: 'responses', provider: name, model: provider.servedChat, status: 200, stream: 1 }]);
  });

  it('runs exec_command when the model asks and answers from its output', async () => {
    const at = await mark(rig);
    const out = parse((await codex(['--json', '--skip-git-repo-check', `Run the shell command \`cat ${workspace.tokenFile}\` and tell me the token.`])).stdout);
    expect(out.failed, JSON.stringify(out.failed)).toBeUndefined();
    const command = out.events.find((e) => e.type === 'item.completed' && e.item.type === 'command_execution')?.item;
    expect(command).toMatchObject({ exit_code: 0, status: 'completed' });
    expect(command.command).toContain(`cat ${workspace.tokenFile}`);
    expect(command.aggregated_output).toContain(workspace.token);
    expect(out.messages.at(-1)).toBe(`The token is ${workspace.token}.`);

    const calls = mainCalls(callsSince(rig, at, provider.name), 'exec_command');
    expect(calls).toHaveLength(2);
    expect(JSON.stringify(calls[0].body)).not.toContain(workspace.token);
    expectInOrder(calls[1].body, ['exec_command', `cat ${workspace.tokenFile}`, workspace.token]);
    const rows = (await rowsSince(rig, at));
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toMatchObject({ endpoint: 'responses', provider: name, model: provider.servedChat, status: 200 });
  });

  it('keeps a three-turn session (exec resume ID, then resume --last), replaying the history', async () => {
    const at = await mark(rig);
    const [first, second] = [word('alpha'), word('beta')];
    const one = parse((await codex(['--json', '--skip-git-repo-check', `Remember the word ${first}.`])).stdout);
    expect(one.messages, JSON.stringify(one.failed)).toEqual([`Noted ${first}.`]);
    const two = parse((await codex(['resume', '--json', '--skip-git-repo-check', one.thread!, `Remember the word ${second}.`])).stdout);
    expect(two.messages, JSON.stringify(two.failed)).toEqual([`Noted ${second}.`]);
    const three = parse((await codex(['resume', '--json', '--skip-git-repo-check', '--last', 'What was the first word?'])).stdout);
    expect(three.messages, JSON.stringify(three.failed)).toEqual([`The first word was ${first}.`]);
    expect(two.thread ?? one.thread).toBe(one.thread);

    const calls = mainCalls(callsSince(rig, at, provider.name), 'exec_command');
    expect(calls).toHaveLength(3);
    expectInOrder(calls[2].body, [`Remember the word ${first}.`, `Noted ${first}.`, `Remember the word ${second}.`, `Noted ${second}.`, 'What was the first word?']);
    expect((await rowsSince(rig, at)).filter((row) => row.provider === name && row.status === 200)).toHaveLength(3);
  });
});
