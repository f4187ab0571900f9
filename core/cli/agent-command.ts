import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { loadAdminToken } from '../secrets/admin-token.ts';
import { AgentKeyStore } from '../agents/agent-key-store.ts';
import { INSTALL_HINTS, launchAsShell, planAgentLaunch, type AgentLaunch } from '../agents/plan-agent-launch.ts';
import type { AgentName } from '../config/config-schema.ts';
import { loadConfigFile } from '../config/load-config.ts';
import { callManagementApi, ManagementApiError } from '../management/call-management-api.ts';
import { provenServer } from './proven-server.ts';
import type { CliIo } from './cli-io.ts';
import { findConfigPath } from './find-config-path.ts';
import { findDataDir } from './find-data-dir.ts';
import { UsageError } from './usage-error.ts';

const NAMES: Record<AgentName, string> = { claude: 'Claude Code', codex: 'Codex CLI' };

/** Patchbay's own options, read from the front of the arguments; the rest (after an optional "--") are the agent's. */
interface LaunchOptions {
  key?: string;
  dataDir?: string;
  config?: string;
  print: boolean;
  agentArgs: string[];
}

export function splitLaunchArgs(args: string[]): LaunchOptions {
  const options: LaunchOptions = { print: false, agentArgs: [] };
  let i = 0;
  const value = (flag: string): string => {
    const arg = args[i];
    if (arg.includes('=')) return arg.slice(arg.indexOf('=') + 1);
    const next = args[++i];
    if (next === undefined) throw new UsageError(`${flag} needs a value`);
    return next;
  };
  for (; i < args.length; i++) {
    const arg = args[i];
    const flag = arg.split('=')[0];
    if (arg === '--') {
      i++;
      break;
    }
    if (flag === '--key') options.key = value('--key');
    else if (flag === '--data-dir') options.dataDir = resolve(value('--data-dir'));
    else if (flag === '--config') options.config = resolve(value('--config'));
    else if (arg === '--print') options.print = true;
    else break;
  }
  options.agentArgs = args.slice(i);
  return options;
}

/**
 * `patchbay claude [args…]` / `patchbay codex [args…]`: starts the installed agent pointed at the
 * running Patchbay, with a Patchbay key of its own and the profile in config.json (agents.claude /
 * agents.codex). The agent runs in the folder the user ran the command from (the launcher of
 * `npm run patchbay` moves back there). The agent's exit code is the command's.
 */
export async function runAgentCommand(agent: AgentName, args: string[], io: CliIo): Promise<number> {
  const options = splitLaunchArgs(args);
  const dataDir = findDataDir({ 'data-dir': options.dataDir }, io.env, io.err);
  const origin = await runningServer(dataDir);
  const adminToken = loadAdminToken(dataDir);
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    try {
      return JSON.parse(await callManagementApi(origin, adminToken, { method, path, body, timeoutMs: 30_000 })) as T;
    } catch (error) {
      throw error instanceof ManagementApiError ? new UsageError(`Patchbay at ${origin} refused: ${error.message}`) : error;
    }
  };
  // The profile from the file the running server reads (or --config), as `patchbay agents set` wrote it.
  const { path: configPath, required } = findConfigPath({ config: options.config }, dataDir);
  const config = loadConfigFile(configPath, { required });
  const models = await api<{ data: { id: string; context_window: number }[] }>('GET', '/models');
  const windows = new Map(models.data.filter((m) => m.context_window > 0).map((m) => [m.id, m.context_window]));
  const plan = (key: string | null): AgentLaunch => planAgentLaunch(agent, { origin, key, profiles: config.agents, catalogWindow: (model) => windows.get(model) });

  if (options.print) {
    io.out(`${launchAsShell(plan(options.key ?? null))}\n`);
    return 0;
  }
  const program = findOnPath(agent, io.env.PATH ?? '');
  if (!program) throw new UsageError(`${NAMES[agent]} is not installed: no "${agent}" on PATH. Install it with "${INSTALL_HINTS[agent]}", then run "patchbay ${agent}" again.`);
  const key = options.key ?? io.env.PATCHBAY_KEY ?? (await agentKey(agent, dataDir, io, api));
  const launch = plan(key);
  const env: NodeJS.ProcessEnv = { ...io.env, ...launch.env };
  for (const name of launch.unset) delete env[name];
  return runProgram(program, [...launch.args, ...options.agentArgs], env);
}

/** The origin of the Patchbay serving this data dir, or a UsageError saying to start it. */
async function runningServer(dataDir: string): Promise<string> {
  const serverFile = join(dataDir, 'server.json');
  const notRunning = new UsageError(`Patchbay is not running for ${dataDir}: start it first ("npm start", or "patchbay serve"), then run this again.`);
  if (!existsSync(serverFile)) throw notRunning;
  let url: string;
  try {
    ({ url } = JSON.parse(readFileSync(serverFile, 'utf8')) as { url: string });
    const token = loadAdminToken(dataDir);
    await provenServer(url, token, dataDir);
    await callManagementApi(url, token, { method: 'GET', path: '/routing', timeoutMs: 5_000 });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if (error instanceof ManagementApiError) throw new UsageError(`Patchbay at ${dataDir} refused the CLI: ${error.message}`);
    throw notRunning;
  }
  return url;
}

/** The agent's own Patchbay key: the one kept in the keychain while it is active, else a new one, kept there. */
async function agentKey(agent: AgentName, dataDir: string, io: CliIo, api: <T>(method: string, path: string, body?: unknown) => Promise<T>): Promise<string> {
  const store = new AgentKeyStore(io.env);
  let stored;
  try {
    stored = store.get(agent, dataDir);
  } catch (error) {
    throw new UsageError(`No keychain to keep ${NAMES[agent]}'s Patchbay key in (${(error as Error).message}). Pass one with --key KEY or PATCHBAY_KEY=KEY ("patchbay keys create --name ${agent}" makes one).`);
  }
  if (stored) {
    const keys = await api<{ data: { id: string; status: string }[] }>('GET', '/keys');
    if (keys.data.some((k) => k.id === stored.id && k.status === 'active')) return stored.secret;
  }
  const created = await api<{ key: { id: string }; secret: string }>('POST', '/keys', { name: `${agent} (patchbay ${agent})` });
  store.set(agent, dataDir, { id: created.key.id, secret: created.secret });
  io.err(`Made a Patchbay key for ${NAMES[agent]} (${created.key.id}) and keep it in the keychain; "patchbay keys list" shows it.\n`);
  return created.secret;
}

export function findOnPath(program: string, path: string): string | null {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** Runs the agent in the foreground; Ctrl-C reaches it (same process group) and Patchbay waits for it to end. */
function runProgram(program: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: 'inherit', env });
    const ignore = () => undefined;
    process.on('SIGINT', ignore);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', ignore);
      resolve(code ?? (signal ? 128 + (signal === 'SIGKILL' ? 9 : signal === 'SIGTERM' ? 15 : 2) : 1));
    });
  });
}
