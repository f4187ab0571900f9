import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPatchbay } from '../../core/app/create-patchbay.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

/**
 * `patchbay agents` and `patchbay claude` / `patchbay codex` as a user runs them (the real CLI
 * against a running Patchbay). The agents themselves run in test/agents (npm run test:agents); here
 * a stand-in program on PATH prints what it was given, so the launcher's own promises are checked
 * on every `npm test`: the variables and arguments, the key made once and kept in the keychain.
 */

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'patchbay.js');
let pb: TestPatchbay;
let programs: string;
const keychainService = `patchbay-cli-agents-${process.pid}`;

beforeAll(async () => {
  pb = await startPatchbay({ config: {} });
  programs = mkdtempSync(join(tmpdir(), 'patchbay-agent-bin-'));
  // Stand-ins for the installed agents: print the variables the launcher sets and the arguments.
  for (const name of ['claude', 'codex']) {
    const file = join(programs, name);
    writeFileSync(file, `#!/bin/sh\nenv | grep -E '^(ANTHROPIC_|CLAUDE_CODE_|PATCHBAY_KEY=)' | sort\necho "cwd:$(pwd -P)"\nfor a in "$@"; do echo "arg:$a"; done\nexit 7\n`);
    chmodSync(file, 0o755);
  }
});
afterAll(async () => {
  rmSync(programs, { recursive: true, force: true });
  await pb.stop();
});

function cli(args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { PATH: `${programs}:${process.env.PATH}`, PATCHBAY_HOME: pb.dataDir, PATCHBAY_KEYCHAIN_SERVICE: keychainService, ANTHROPIC_API_KEY: 'sk-ant-from-the-shell', DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS, XDG_DATA_HOME: process.env.XDG_DATA_HOME, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const lines = (text: string) => text.trim().split('\n');

// Each CLI run starts a Node process: on a loaded machine that alone takes seconds.
describe('patchbay agents', () => {
  it('sets a profile in config.json, validated with a message naming the field', async () => {
    const set = await cli(['agents', 'set', 'claude', '--main', 'openai/gpt-4o', '--background', 'google/gemini-2.5-flash', '--subagent', 'groq/llama-3.3-70b-versatile']);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(pb.dataDir, 'config.json'), 'utf8')).agents.claude).toEqual({ main: 'openai/gpt-4o', background: 'google/gemini-2.5-flash', subagent: 'groq/llama-3.3-70b-versatile' });
    const show = await cli(['agents', 'show', '--json']);
    expect(JSON.parse(show.stdout)).toMatchObject({ claude: { main: 'openai/gpt-4o' } });

    const tooSmall = await cli(['agents', 'set', 'claude', '--context-window', '12']);
    expect(tooSmall.code).toBe(2);
    expect(tooSmall.stderr).toContain('agents.claude.contextWindow: must be at least 1,000 tokens');
    const notANumber = await cli(['agents', 'set', 'codex', '--context-window', 'big']);
    expect(notANumber.stderr).toContain('agents.codex.contextWindow');
    const wrongField = await cli(['agents', 'set', 'codex', '--background', 'openai/gpt-4o']);
    expect(wrongField.code).toBe(2);
    expect(wrongField.stderr).toMatch(/agents\.codex.*background/);
    // Issue 34 (5): a "model" that is shell code was accepted, and the snippets printed it unquoted.
    const before = readFileSync(join(pb.dataDir, 'config.json'), 'utf8');
    for (const [flag, value] of [['--main', '$(touch pwned)'], ['--background', '`id`'], ['--subagent', 'gpt-4o; rm -rf ~'], ['--main', "it's"]]) {
      const shell = await cli(['agents', 'set', 'claude', flag, value]);
      expect(shell.code, `${flag} ${value}`).toBe(2);
      expect(shell.stderr).toContain(`agents.claude.${flag.slice(2)}: must be a model name`);
    }
    expect(readFileSync(join(pb.dataDir, 'config.json'), 'utf8')).toBe(before);
    const cleared = await cli(['agents', 'set', 'claude', '--subagent', 'none']);
    expect(JSON.parse(cleared.stdout.slice(cleared.stdout.indexOf('{')))).toEqual({ main: 'openai/gpt-4o', background: 'google/gemini-2.5-flash' });
  });
});

describe('patchbay claude / patchbay codex', () => {
  it('starts claude with the base URL, a key made for it and kept, the profile models and the catalog window of a non-Claude model', async () => {
    await cli(['agents', 'set', 'claude', '--main', 'openai/gpt-4o', '--background', 'google/gemini-2.5-flash']);
    const first = await cli(['claude', '-p', 'hello', '--model', 'sonnet']);
    expect(first.code, first.stderr).toBe(7); // the agent's own exit code
    expect(first.stderr).toMatch(/Made a Patchbay key for Claude Code \(\S+\)/);
    const out = lines(first.stdout);
    const origin = pb.patchbay.url;
    expect(out).toEqual(expect.arrayContaining([
      `ANTHROPIC_BASE_URL=${origin}`,
      // Claude Code's gateway hints: what each request is for, which routing.rules match.
      'CLAUDE_CODE_GATEWAY_HINT_HEADERS=1',
      'ANTHROPIC_MODEL=openai/gpt-4o',
      'ANTHROPIC_DEFAULT_OPUS_MODEL=openai/gpt-4o',
      'ANTHROPIC_DEFAULT_SONNET_MODEL=openai/gpt-4o',
      'ANTHROPIC_DEFAULT_HAIKU_MODEL=google/gemini-2.5-flash',
      // Patchbay's catalog window for gpt-4o, instead of the 1M tokens Claude Code assumes.
      'CLAUDE_CODE_AUTO_COMPACT_WINDOW=128000',
      'CLAUDE_CODE_MAX_CONTEXT_TOKENS=128000',
      'arg:-p', 'arg:hello', 'arg:--model', 'arg:sonnet',
    ]));
    // A key left in the shell is not passed on beside Patchbay's.
    expect(first.stdout).not.toContain('ANTHROPIC_API_KEY');
    const key = out.find((l) => l.startsWith('ANTHROPIC_AUTH_TOKEN='))!.slice('ANTHROPIC_AUTH_TOKEN='.length);
    const made = pb.patchbay.keys.list().filter((k) => k.name === 'claude (patchbay claude)');
    expect(made).toHaveLength(1);

    // The same key next time; a new one once it is revoked.
    const second = await cli(['claude']);
    expect(lines(second.stdout)).toContain(`ANTHROPIC_AUTH_TOKEN=${key}`);
    expect(second.stderr).toBe('');
    pb.patchbay.keys.revoke(made[0].id);
    const third = await cli(['claude']);
    expect(third.stderr).toContain('Made a Patchbay key for Claude Code');
    expect(lines(third.stdout)).not.toContain(`ANTHROPIC_AUTH_TOKEN=${key}`);
  });

  it('gives codex its provider and model as -c overrides, and --key / PATCHBAY_KEY win over the kept key', async () => {
    await cli(['agents', 'set', 'codex', '--main', 'anthropic/claude-sonnet-4-5', '--context-window', '200000']);
    const out = await cli(['codex', '--key', 'pb-given', '--', 'exec', '--json', 'hi']);
    expect(out.code, out.stderr).toBe(7);
    const args = lines(out.stdout).filter((l) => l.startsWith('arg:')).map((l) => l.slice(4));
    expect(args).toEqual([
      '-c', 'model_provider="patchbay"',
      '-c', 'model_providers.patchbay.name="Patchbay"',
      '-c', `model_providers.patchbay.base_url="${pb.patchbay.url}/v1"`,
      '-c', 'model_providers.patchbay.env_key="PATCHBAY_KEY"',
      '-c', 'model_providers.patchbay.wire_api="responses"',
      '-c', `model_providers.patchbay.model_catalog_url="${pb.patchbay.url}/v1/codex/models"`,
      '-c', 'model_providers.patchbay.supports_websockets=true',
      '-c', 'model="anthropic/claude-sonnet-4-5"',
      '-c', 'model_context_window=200000',
      'exec', '--json', 'hi',
    ]);
    expect(lines(out.stdout)).toContain('PATCHBAY_KEY=pb-given');
    const fromEnv = await cli(['codex', 'exec'], { PATCHBAY_KEY: 'pb-from-env' });
    expect(lines(fromEnv.stdout)).toContain('PATCHBAY_KEY=pb-from-env');
  });

  it('--print shows the same by hand, the key as $PATCHBAY_KEY', async () => {
    const out = await cli(['claude', '--print']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`export ANTHROPIC_BASE_URL='${pb.patchbay.url}'`);
    expect(out.stdout).toContain('export ANTHROPIC_AUTH_TOKEN=$PATCHBAY_KEY');
    expect(out.stdout).toContain('unset ANTHROPIC_API_KEY');
    expect(out.stdout.trim().split('\n').at(-1)).toBe('claude');
  });

  it('says how to install a missing agent, and to start Patchbay when it is not running', async () => {
    const missing = await cli(['codex', 'exec'], { PATH: '/usr/bin:/bin' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Codex CLI is not installed: no "codex" on PATH. Install it with "npm install -g @openai/codex"');
    const elsewhere = mkdtempSync(join(tmpdir(), 'patchbay-none-'));
    const notRunning = await cli(['claude'], { PATCHBAY_HOME: elsewhere });
    rmSync(elsewhere, { recursive: true, force: true });
    expect(notRunning.code).toBe(2);
    expect(notRunning.stderr).toContain('Patchbay is not running');
  });

  it('GET /api/agents gives the dashboard the same command and shell text', async () => {
    const response = await fetch(`${pb.patchbay.url}/api/agents`, { headers: { authorization: `Bearer ${readFileSync(join(pb.dataDir, 'admin-token'), 'utf8').trim()}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { agent: string; command: string; shell: string }[] };
    expect(body.data.map((a) => a.command)).toEqual(['patchbay claude', 'patchbay codex']);
    const printed = await cli(['claude', '--print']);
    expect(body.data[0].shell).toBe(printed.stdout.trim());
  });
});

describe('where the launcher works', () => {
  it('starts the agent in the folder it was run from, where a relative --data-dir and --config also point', async () => {
    const project = realpathSync(mkdtempSync(join(tmpdir(), 'patchbay-user-project-')));
    try {
      const profile = join(project, 'agents.json');
      writeFileSync(profile, JSON.stringify({ agents: { codex: { main: 'groq/llama-3.3-70b-versatile' } } }));
      const out = await cli(['codex', '--data-dir', relative(project, pb.dataDir), '--config', 'agents.json', '--key', 'pb-given', 'exec'], { PATCHBAY_HOME: '' }, project);
      expect(out.code, out.stderr).toBe(7);
      expect(lines(out.stdout)).toContain(`cwd:${project}`);
      expect(lines(out.stdout)).toContain('arg:model="groq/llama-3.3-70b-versatile"');
      expect(lines(out.stdout)).toContain(`arg:model_providers.patchbay.base_url="${pb.patchbay.url}/v1"`);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('with serve --config FILE, agents set writes FILE and the launcher starts the agent with that profile', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-config-elsewhere-'));
    const settings = mkdtempSync(join(tmpdir(), 'patchbay-settings-'));
    const file = join(settings, 'team.json');
    writeFileSync(file, JSON.stringify({}));
    const served = await createPatchbay({ dataDir, configPath: file, host: '127.0.0.1', port: 0, env: {}, keychainService, log: () => undefined });
    try {
      const set = await cli(['agents', 'set', 'codex', '--main', 'anthropic/claude-sonnet-4-5'], { PATCHBAY_HOME: dataDir });
      expect(set.code, set.stderr).toBe(0);
      expect(JSON.parse(readFileSync(file, 'utf8')).agents.codex).toEqual({ main: 'anthropic/claude-sonnet-4-5' });
      expect(existsSync(join(dataDir, 'config.json'))).toBe(false);
      const show = await cli(['agents', 'show', '--json'], { PATCHBAY_HOME: dataDir });
      expect(JSON.parse(show.stdout)).toEqual({ codex: { main: 'anthropic/claude-sonnet-4-5' } });
      const out = await cli(['codex', '--key', 'pb-given', 'exec'], { PATCHBAY_HOME: dataDir });
      expect(out.code, out.stderr).toBe(7);
      expect(lines(out.stdout)).toContain('arg:model="anthropic/claude-sonnet-4-5"');
      // The dashboard's snippet says the same.
      const agents = served.management.agents().data;
      expect(agents.find((a) => a.agent === 'codex')!.profile).toEqual({ main: 'anthropic/claude-sonnet-4-5' });
    } finally {
      await served.close();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(settings, { recursive: true, force: true });
    }
  });
});
