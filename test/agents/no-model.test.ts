import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editConfigFile, section } from '../../core/config/write-config.ts';
import type { Rig } from '../helpers/conformance-matrix.ts';
import { callsSince, codexEvents, exportsOf, mainCalls, mark, providersReached, readmeBlock, readmeCodexConfig, rowsSince, startAgentRig, toolNames } from './agent-rig.ts';
import { CLAUDE_BIN, CLAUDE_QUIET_ENV, CLAUDE_VERSION, CODEX_BIN, CODEX_VERSION, agentsInstalled, baseEnv, createWorkspace, jsonLines, repoRoot, run, type Workspace } from './run-agent.ts';
import { CODE_MODE_TOOLS } from './scripted-model.ts';

/**
 * The agents set up as a new user would, with no model anywhere: Claude Code with the README's two
 * variables, Codex with the README's config.toml without its `model` line, and `patchbay claude` /
 * `patchbay codex` without a profile. Each asks for its own default model, which must reach that
 * model's own provider through Patchbay. Observed 2026-11-29 (against the emulators directly):
 *
 * - Claude Code 2.1.332 (and 2.1.328) asks for claude-opus-5-5; `--model sonnet` / `--model haiku`
 *   (its background and subagent tiers when no variable names them) claude-sonnet-5-5 /
 *   claude-haiku-5-5; subagents (Agent tool, Explore) inherit the main model. It sends a
 *   `role: "system"` message (its environment) after the first user message. With
 *   CLAUDE_CODE_ENABLE_GATEWAY_MODEL_DISCOVERY=1 it first calls GET /v1/models?limit=1000.
 * - Codex 0.171.0 asks for gpt-6.2-sol (0.169.0: gpt-6.1-sol) in the "Responses Lite" shape: no
 *   top-level tools, an `additional_tools` item declaring the `functions` namespace with the
 *   freeform `exec` tool (code mode), through which it runs shell commands (`tools.exec_command`).
 *
 * Which model is the default is the agent's to decide: the tests read it from what the agent sent
 * and assert where it went, so they hold for the pinned and the newest versions alike.
 */

let rig: Rig;
let workspace: Workspace;
const keychainService = `patchbay-agent-test-nomodel-${process.pid}`;
beforeAll(async () => {
  rig = await startAgentRig();
  workspace = createWorkspace('nomodel');
});
afterAll(async () => {
  workspace?.remove();
  await rig?.stop();
});

type Body = Record<string, any>;

/** The README's two variables, with this Patchbay's address and key in place of the examples (no model). */
function readmeClaudeEnv(): Record<string, string> {
  const recipe = exportsOf(readmeBlock(/^### Claude Code by hand/m, 'sh'));
  expect(Object.keys(recipe)).toEqual(['ANTHROPIC_BASE_URL', 'ANTHROPIC_AUTH_TOKEN']);
  return { ANTHROPIC_BASE_URL: recipe.ANTHROPIC_BASE_URL.replace('http://127.0.0.1:8790', rig.pb.patchbay.url), ANTHROPIC_AUTH_TOKEN: recipe.ANTHROPIC_AUTH_TOKEN.replace('$PATCHBAY_KEY', rig.pb.key) };
}

function claude(args: string[], env: Record<string, string> = {}) {
  return run(CLAUDE_BIN, ['-p', ...args, '--tools', 'Bash', '--allowedTools', 'Bash'], { cwd: workspace.project, env: { ...baseEnv(workspace.home), ...CLAUDE_QUIET_ENV, ...readmeClaudeEnv(), ...env } });
}

function resultOf(stdout: string): Body {
  const line = jsonLines(stdout).find((event) => event.type === 'result');
  expect(line, stdout).toBeDefined();
  return line!;
}

/** The one model every call since the mark asked for, on the one provider they all reached. */
function askedModel(at: Awaited<ReturnType<typeof mark>>, provider: 'anthropic' | 'openai'): string {
  const models = new Set(callsSince(rig, at, provider).map((call) => (call.body as Body).model as string));
  expect(models.size, [...models].join(', ')).toBe(1);
  return [...models][0];
}

const word = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;

describe.skipIf(!agentsInstalled)(`Claude Code ${CLAUDE_VERSION} with no model set`, () => {
  it('asks for its own default model, which Patchbay serves on Anthropic (passed through, its system message and all)', async () => {
    const at = await mark(rig);
    const out = await claude([`Run the shell command \`cat ${workspace.tokenFile}\` and tell me the token.`, '--output-format', 'json']);
    expect(out.code, out.stderr + out.stdout).toBe(0);
    const result = resultOf(out.stdout);
    expect(result).toMatchObject({ is_error: false, result: `The token is ${workspace.token}.`, num_turns: 2 });
    expect(providersReached(rig, at)).toEqual({ anthropic: 2 });
    const model = askedModel(at, 'anthropic');
    expect(model).toMatch(/^claude-/);
    expect(Object.keys(result.modelUsage)).toEqual([model]);
    const [first] = mainCalls(callsSince(rig, at, 'anthropic'), 'Bash');
    const roles = (first.body as Body).messages.map((m: Body) => m.role);
    // 2.1.332 puts its environment in a system message after the user's words; Anthropic gets it as sent.
    if (roles.includes('system')) expect(roles.indexOf('system')).toBeGreaterThan(roles.indexOf('user'));
    for (const row of await rowsSince(rig, at)) expect(row).toMatchObject({ endpoint: 'messages', provider: 'anthropic', model, status: 200 });
  });

  it('its other tiers (--model sonnet, --model haiku: the background and subagent models when no variable names them) reach Anthropic too', async () => {
    for (const tier of ['sonnet', 'haiku']) {
      const at = await mark(rig);
      const said = word(tier);
      const out = await claude(['--model', tier, `Say ${said}.`, '--output-format', 'json']);
      expect(out.code, out.stderr + out.stdout).toBe(0);
      expect(resultOf(out.stdout).result).toBe(said);
      expect(providersReached(rig, at)).toEqual({ anthropic: 1 });
      expect(askedModel(at, 'anthropic')).toMatch(new RegExp(`^claude-${tier}-`));
      expect((await rowsSince(rig, at))[0]).toMatchObject({ provider: 'anthropic', status: 200 });
    }
  });

  it("Claude Code's model discovery (GET /v1/models?limit=1000) lists the current Claude ids, its defaults among them", async () => {
    const at = await mark(rig);
    const out = await claude(['Say listed.', '--output-format', 'json'], { CLAUDE_CODE_ENABLE_GATEWAY_MODEL_DISCOVERY: '1' });
    expect(out.code, out.stderr + out.stdout).toBe(0);
    const defaults = [askedModel(at, 'anthropic')];
    // The same request, as Claude Code sends it.
    const listed = await fetch(`${rig.pb.patchbay.url}/v1/models?limit=1000`, { headers: { authorization: `Bearer ${rig.pb.key}`, 'anthropic-version': '2023-06-01', 'user-agent': `claude-code/${CLAUDE_VERSION}` } });
    expect(listed.status).toBe(200);
    const ids = ((await listed.json()) as { data: { id: string }[] }).data.map((m) => m.id);
    // Claude Code keeps the ids naming claude or anthropic; the current tiers' defaults must be there.
    for (const id of [...defaults, 'claude-sonnet-5-5', 'claude-haiku-5-5']) expect(ids.some((listedId) => listedId === id || listedId.endsWith(`/${id}`)), `${id} in ${ids.join(', ')}`).toBe(true);
  });
});

describe.skipIf(!agentsInstalled)(`Codex ${CODEX_VERSION} with no model set`, () => {
  let codexHome: string;
  beforeAll(() => {
    codexHome = join(workspace.home, '.codex-readme');
    mkdirSync(codexHome, { recursive: true });
    const config = readmeCodexConfig(rig.pb.patchbay.url, null);
    expect(config).not.toMatch(/^model =/m);
    writeFileSync(join(codexHome, 'config.toml'), config);
  });
  const codex = (args: string[]) => run(CODEX_BIN, ['exec', '--json', '--skip-git-repo-check', ...args], { cwd: workspace.project, env: { ...baseEnv(workspace.home), CODEX_HOME: codexHome, PATCHBAY_KEY: rig.pb.key } });

  it('asks for its own default model, which Patchbay serves on OpenAI (passed through), and runs a shell command', async () => {
    const at = await mark(rig);
    const out = codexEvents((await codex([`Run the shell command \`cat ${workspace.tokenFile}\` and tell me the token.`])).stdout);
    expect(out.failed, JSON.stringify(out.failed)).toBeUndefined();
    const command = out.events.find((e) => e.type === 'item.completed' && e.item.type === 'command_execution')?.item;
    expect(command).toMatchObject({ exit_code: 0, status: 'completed' });
    expect(command.aggregated_output).toContain(workspace.token);
    expect(out.messages.at(-1)).toContain(workspace.token);
    expect(providersReached(rig, at)).toEqual({ openai: 2 });
    const model = askedModel(at, 'openai');
    expect(model).toMatch(/^gpt-/);
    const [first] = callsSince(rig, at, 'openai');
    const items = (first.body as Body).input as Body[];
    // 0.171.0's code mode: its tools in an additional_tools item (OpenAI gets it untouched), the shell behind exec.
    if (items.some((item) => item.type === 'additional_tools')) {
      expect(first.body).not.toHaveProperty('tools');
      expect(items.flatMap((item) => (item.type === 'additional_tools' ? toolNames(item) : []))).toEqual(expect.arrayContaining([CODE_MODE_TOOLS[0]]));
    }
    for (const row of await rowsSince(rig, at)) expect(row).toMatchObject({ endpoint: 'responses', provider: 'openai', model, status: 200 });
  });
});

describe.skipIf(!agentsInstalled)('patchbay claude / patchbay codex without a profile', () => {
  function patchbay(args: string[]) {
    const env = {
      ...baseEnv(workspace.home),
      ...CLAUDE_QUIET_ENV,
      PATH: `${dirname(CLAUDE_BIN)}:${baseEnv(workspace.home).PATH}`,
      PATCHBAY_HOME: rig.pb.dataDir,
      PATCHBAY_KEYCHAIN_SERVICE: keychainService,
      CODEX_HOME: join(workspace.home, '.codex-launch'),
    };
    return run(process.execPath, [join(repoRoot, 'bin', 'patchbay.js'), ...args], { cwd: workspace.project, env });
  }
  beforeAll(() => {
    mkdirSync(join(workspace.home, '.codex-launch'), { recursive: true });
    editConfigFile(join(rig.pb.dataDir, 'config.json'), (raw) => {
      delete section(raw, 'agents').claude;
      delete section(raw, 'agents').codex;
    });
  });

  it("patchbay claude reaches Claude Code's default model on Anthropic", async () => {
    const at = await mark(rig);
    const said = word('launch');
    const out = await patchbay(['claude', '-p', `Say ${said}.`, '--output-format', 'json', '--tools', 'Bash', '--allowedTools', 'Bash']);
    expect(out.code, out.stderr + out.stdout).toBe(0);
    expect(resultOf(out.stdout)).toMatchObject({ is_error: false, result: said });
    expect(providersReached(rig, at)).toEqual({ anthropic: 1 });
    expect(askedModel(at, 'anthropic')).toMatch(/^claude-/);
  });

  it("patchbay codex reaches Codex's default model on OpenAI", async () => {
    const at = await mark(rig);
    const said = word('launch');
    const raw = await patchbay(['codex', 'exec', '--json', '--skip-git-repo-check', `Say ${said}.`]);
    const out = codexEvents(raw.stdout);
    expect(out.failed, JSON.stringify(out.failed)).toBeUndefined();
    expect(out.messages, raw.stdout + raw.stderr).toEqual([said]);
    expect(providersReached(rig, at)).toEqual({ openai: 1 });
    expect(askedModel(at, 'openai')).toMatch(/^gpt-/);
  });
});
