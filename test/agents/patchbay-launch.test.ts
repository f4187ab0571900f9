import { existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editConfigFile, section } from '../../core/config/write-config.ts';
import type { Rig } from '../helpers/conformance-matrix.ts';
import { PROVIDERS, callsSince, mainCalls, mark, providersReached, rowsSince, startAgentRig, type ProviderCase } from './agent-rig.ts';
import { CLAUDE_BIN, CLAUDE_QUIET_ENV, agentsInstalled, baseEnv, createWorkspace, jsonLines, repoRoot, run, type Workspace } from './run-agent.ts';
import { readmeBlock } from './agent-rig.ts';

/**
 * `patchbay claude` and `patchbay codex` (the real CLI, bin/patchbay.js) starting the real agents
 * against the running Patchbay: no base URL, key or model given by hand, only the profile set with
 * `patchbay agents set`. The key is one Patchbay made for the agent and keeps in the keychain (the
 * test run's private keyring); Codex gets no config.toml at all.
 */

let rig: Rig;
let workspace: Workspace;
const keychainService = `patchbay-agent-test-${process.pid}`;
beforeAll(async () => {
  rig = await startAgentRig();
  workspace = createWorkspace('launch');
});
afterAll(async () => {
  workspace?.remove();
  await rig?.stop();
});

function patchbay(args: string[], extraEnv: Record<string, string> = {}) {
  const env = {
    ...baseEnv(workspace.home),
    ...CLAUDE_QUIET_ENV,
    // The agents found on PATH, as a user's global install would be.
    PATH: `${dirname(CLAUDE_BIN)}:${baseEnv(workspace.home).PATH}`,
    PATCHBAY_HOME: rig.pb.dataDir,
    PATCHBAY_KEYCHAIN_SERVICE: keychainService,
    CODEX_HOME: join(workspace.home, '.codex'),
    ...extraEnv,
  };
  return run(process.execPath, [join(repoRoot, 'bin', 'patchbay.js'), ...args], { cwd: workspace.project, env });
}

/**
 * The README's launcher: `npm --prefix CHECKOUT run patchbay -- ...` from the user's project
 * (scripts/ensure-setup.js, the path a user takes, with its move back to where the user stands).
 */
function npmRunPatchbay(args: string[]) {
  const env = { ...baseEnv(workspace.home), ...CLAUDE_QUIET_ENV, PATH: `${dirname(CLAUDE_BIN)}:${baseEnv(workspace.home).PATH}`, PATCHBAY_HOME: rig.pb.dataDir, PATCHBAY_KEYCHAIN_SERVICE: keychainService, CODEX_HOME: join(workspace.home, '.codex') };
  return run('npm', ['--prefix', repoRoot, 'run', '--silent', 'patchbay', '--', ...args], { cwd: workspace.project, env, timeoutMs: 300_000 });
}

/**
 * The launcher runs `npm ci` when node_modules is older than the lockfile: never from a test (in a
 * shared checkout it would empty node_modules under the running suite). A fresh `npm test` run is never stale.
 */
const mtime = (path: string) => (existsSync(path) ? statSync(path).mtimeMs : 0);
const installed = mtime(join(repoRoot, 'node_modules', '.package-lock.json'));
const dependenciesFresh = installed >= mtime(join(repoRoot, 'package-lock.json')) && installed >= mtime(join(repoRoot, 'package.json'));

/** The profile, written as `patchbay agents set` writes it (that command has its own test: test/integration/cli-agents.test.ts). */
function setProfile(agent: 'claude' | 'codex', profile: Record<string, unknown>): void {
  editConfigFile(join(rig.pb.dataDir, 'config.json'), (raw) => {
    section(raw, 'agents')[agent] = profile;
  });
}

const agentKeyIds = new Set<string>();

describe.skipIf(!agentsInstalled).each(PROVIDERS.map((p) => [p.name, p] as [string, ProviderCase]))('patchbay claude / patchbay codex via %s', (name, provider) => {
  it('patchbay claude runs Bash through the profile main model and the agent key, with the real window', async () => {
    setProfile('claude', { main: provider.chat, contextWindow: 128_000 });
    const at = await mark(rig);
    const out = await patchbay(['claude', '-p', `Run the shell command \`cat ${workspace.tokenFile}\` and tell me the token.`, '--output-format', 'json', '--tools', 'Bash', '--allowedTools', 'Bash']);
    expect(out.code, out.stderr + out.stdout).toBe(0);
    const result = jsonLines(out.stdout).find((e) => e.type === 'result')!;
    expect(result).toMatchObject({ is_error: false, result: `The token is ${workspace.token}.` });
    // Claude Code took the window from the profile instead of assuming 1M tokens for a model it does not know.
    // (A Claude model keeps the window Claude Code knows for it.)
    expect(result.modelUsage[provider.chat].contextWindow).toBe(name === 'anthropic' ? 200_000 : 128_000);
    expect(providersReached(rig, at)).toEqual({ [name]: 2 });
    expect(mainCalls(callsSince(rig, at, provider.name), 'Bash')).toHaveLength(2);
    const rows = (await rowsSince(rig, at));
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ endpoint: 'messages', provider: name, status: 200 });
      expect(row.key_id).not.toBe(rig.pb.patchbay.keys.list().find((k) => k.name === 'default')?.id);
      agentKeyIds.add(`claude:${String(row.key_id)}`);
    }
  });

  it('patchbay codex runs exec_command through -c overrides alone, leaving config.toml alone', async () => {
    setProfile('codex', { main: provider.chat });
    const codexHome = join(workspace.home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    const userConfig = '# the user\'s own settings\nmodel_reasoning_summary = "concise"\n';
    writeFileSync(join(codexHome, 'config.toml'), userConfig);
    const at = await mark(rig);
    const out = await patchbay(['codex', 'exec', '--json', '--skip-git-repo-check', `Run the shell command \`cat ${workspace.tokenFile}\` and tell me the token.`]);
    const events = jsonLines(out.stdout);
    expect(events.find((e) => e.type === 'turn.failed' || e.type === 'error'), out.stdout + out.stderr).toBeUndefined();
    const messages = events.filter((e) => e.type === 'item.completed' && e.item.type === 'agent_message').map((e) => e.item.text);
    expect(messages.at(-1)).toBe(`The token is ${workspace.token}.`);
    expect(providersReached(rig, at)).toEqual({ [name]: 2 });
    expect(readFileSync(join(codexHome, 'config.toml'), 'utf8')).toBe(userConfig);
    const rows = (await rowsSince(rig, at));
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ endpoint: 'responses', provider: name, model: provider.servedChat, status: 200 });
      agentKeyIds.add(`codex:${String(row.key_id)}`);
    }
  });
});

describe.skipIf(!agentsInstalled)('the agents keys', () => {
  it('are one key per agent, made on first use and reused', () => {
    const claude = [...agentKeyIds].filter((id) => id.startsWith('claude:'));
    const codex = [...agentKeyIds].filter((id) => id.startsWith('codex:'));
    // Every provider's runs used one key per agent (where the runs got through at all).
    expect(claude.length).toBeLessThanOrEqual(1);
    expect(codex.length).toBeLessThanOrEqual(1);
    const names = rig.pb.patchbay.keys.list().map((k) => k.name);
    expect(names.filter((n) => n.startsWith('claude'))).toHaveLength(claude.length);
    expect(existsSync(join(rig.pb.dataDir, 'config.json'))).toBe(true);
  });
});

describe.skipIf(!agentsInstalled || !dependenciesFresh)('the README launcher, from the user\'s project', () => {
  it('is written as npm --prefix CHECKOUT run patchbay from the project', () => {
    const block = readmeBlock(/^## Claude Code and Codex CLI/m, 'sh');
    expect(block).toMatch(/^npm --prefix \S+ run patchbay -- claude -p /m);
    expect(block).toMatch(/^npm --prefix \S+ run patchbay -- codex exec /m);
  });

  it('starts Claude Code and Codex in the project folder, not in the Patchbay checkout', async () => {
    setProfile('claude', { main: 'openai/gpt-4o' });
    setProfile('codex', { main: 'openai/gpt-4o' });
    const project = realpathSync(workspace.project);
    mkdirSync(join(workspace.home, '.codex'), { recursive: true });
    const claude = await npmRunPatchbay(['claude', '-p', 'Run the shell command `pwd -P` and tell me what it printed.', '--output-format', 'json', '--tools', 'Bash', '--allowedTools', 'Bash']);
    expect(claude.code, claude.stderr + claude.stdout).toBe(0);
    const said = String(jsonLines(claude.stdout).find((e) => e.type === 'result')!.result);
    expect(said).toContain(`The command printed: ${project}`);
    expect(said).not.toContain(repoRoot);
    const codex = await npmRunPatchbay(['codex', 'exec', '--json', '--skip-git-repo-check', 'Run the shell command `pwd -P` and tell me what it printed.']);
    const messages = jsonLines(codex.stdout).filter((e) => e.type === 'item.completed' && e.item.type === 'agent_message').map((e) => e.item.text);
    expect(messages.at(-1), codex.stdout + codex.stderr).toContain(project);
    expect(messages.at(-1)).not.toContain(repoRoot);
  });
});
