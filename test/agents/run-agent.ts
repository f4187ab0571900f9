import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Runs the real agents installed in test/agents (scripts/ensure-agents.js) non-interactively, each in
 * a temporary HOME (and CODEX_HOME) of its own, with an environment that holds nothing of the
 * developer's: no provider keys, no proxies, nothing that lets them reach the internet.
 */

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(here, '..', '..');
/** Where the agents are installed: test/agents (the pins), or test/agents/latest under `npm run test:agents -- --latest`. */
export const agentsDir = process.env.PATCHBAY_AGENTS_DIR || here;
export const CLAUDE_BIN = join(agentsDir, 'node_modules', '.bin', 'claude');
export const CODEX_BIN = join(agentsDir, 'node_modules', '.bin', 'codex');
export const agentsInstalled = existsSync(CLAUDE_BIN) && existsSync(CODEX_BIN);

function installedVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(join(agentsDir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'not installed';
  }
}

/** The versions under test, for the tests' names (so a run's output says what it tested). */
export const CLAUDE_VERSION = installedVersion('@anthropic-ai/claude-code');
export const CODEX_VERSION = installedVersion('@openai/codex');

export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment every agent run starts from: PATH (with this Node first, Codex's launcher is a Node script), locale, temp dir. */
export function baseEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    TMPDIR: tmpdir(),
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    // The private D-Bus session of the test run (patchbay claude keeps its key in the keychain).
    ...(process.env.DBUS_SESSION_BUS_ADDRESS ? { DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS } : {}),
    ...(process.env.XDG_DATA_HOME ? { XDG_DATA_HOME: process.env.XDG_DATA_HOME } : {}),
  };
}

/** Claude Code's switches for a run that reaches nothing but its base URL. */
export const CLAUDE_QUIET_ENV = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_FEEDBACK_SURVEY: '1',
  CLAUDE_CODE_ENABLE_TELEMETRY: '0',
};

export function run(command: string, args: string[], options: { env: NodeJS.ProcessEnv; cwd: string; timeoutMs?: number }): Promise<AgentRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A workspace for one agent: a temporary HOME and a project folder holding a file with a random token. */
export interface Workspace {
  home: string;
  project: string;
  tokenFile: string;
  token: string;
  remove(): void;
}

export function createWorkspace(label: string): Workspace {
  const home = mkdtempSync(join(tmpdir(), `patchbay-agent-${label}-`));
  const project = join(home, 'project');
  mkdirSync(project);
  const token = `TOKEN-${Math.random().toString(36).slice(2, 10)}${Math.random().toString(36).slice(2, 10)}`;
  const tokenFile = join(project, 'secret-token.txt');
  writeFileSync(tokenFile, `${token}\n`);
  return { home, project, tokenFile, token, remove: () => rmSync(home, { recursive: true, force: true }) };
}

/** Lines of JSON output (stream-json, codex --json), parsed; other lines skipped. */
export function jsonLines(text: string): Record<string, any>[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, any>];
      } catch {
        return [];
      }
    });
}
