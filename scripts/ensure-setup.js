#!/usr/bin/env node
// Makes a fresh checkout runnable, then runs what was asked. Plain JavaScript that any Node from
// 18 on can run, because on a fresh machine the system Node may be too old for Patchbay itself.
//
//   node scripts/ensure-setup.js test [vitest args]   install if needed, then run the test suite
//   node scripts/ensure-setup.js start [cli args]     install if needed, then run the Patchbay CLI
//   node scripts/ensure-setup.js bench [args]         install if needed, then run the benchmark
//   node scripts/ensure-setup.js build                install if needed and build the dashboard: a
//                                                      service's release dir, ready for `node bin/patchbay.js serve`
//   node scripts/ensure-setup.js agents [vitest args] install if needed (and the real agents into
//                                                      test/agents, scripts/ensure-agents.js), then run the agent tests
//   node scripts/ensure-setup.js agents --latest [...] the same against the newest published agents
//                                                      (installed into test/agents/latest)
//
// Steps: (1) a Node 22.18+ (else Node 24 from the npm registry's node-<platform>-<arch> package,
// unpacked into .tools/node); (2) npm ci when node_modules is missing or older than the lockfile;
// (3) on Linux, the system packages of scripts/system-packages.js (a Secret Service for the keychain,
// Chromium for the browser tests), installed with apt-get when run as root, else named in one line;
// (4) the command, run by that Node (in a private D-Bus session with gnome-keyring where the
// machine's session offers no Secret Service).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_ENV, NODE_FLAGS } from '../bin/node-flags.js';
import { ensureAgentsInstalled, ensureLatestAgentsInstalled } from './ensure-agents.js';
import { ensureCoreBuilt } from './build-core.js';
import { ensureRendererBuilt } from './build-renderer.js';
import { needsPrivateKeyring, planSystemPackages } from './system-packages.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const toolsDir = join(root, '.tools');
const localNodeDir = join(toolsDir, 'node');
const NODE_MAJOR = 24;

function say(message) {
  process.stderr.write(`[patchbay setup] ${message}\n`);
}

function nodeIsRecentEnough(version) {
  const [major, minor] = version.replace(/^v/, '').split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 18);
}

function versionOf(nodeBinary) {
  try {
    return execFileSync(nodeBinary, ['--version'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

/** Returns the bin folder of a suitable Node, fetching Node 24 from the npm registry if needed. */
function ensureNode() {
  const localBin = join(localNodeDir, 'bin');
  const localVersion = existsSync(join(localBin, 'node')) ? versionOf(join(localBin, 'node')) : null;
  if (localVersion && nodeIsRecentEnough(localVersion)) return localBin;
  if (nodeIsRecentEnough(process.version)) return dirname(process.execPath);
  const pkg = `node-${process.platform}-${process.arch}@${NODE_MAJOR}`;
  say(`Node ${process.version} is too old (Patchbay needs 22.18+); fetching ${pkg} from the npm registry into .tools/node ...`);
  const staging = join(toolsDir, 'staging');
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  run('npm', ['pack', pkg, '--silent', '--pack-destination', staging], { cwd: staging });
  const tarball = readdirSync(staging).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack ${pkg} produced no tarball`);
  run('tar', ['xzf', tarball], { cwd: staging });
  rmSync(localNodeDir, { recursive: true, force: true });
  renameSync(join(staging, 'package'), localNodeDir);
  rmSync(staging, { recursive: true, force: true });
  say(`Using ${versionOf(join(localBin, 'node'))} from .tools/node.`);
  return localBin;
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    say(`"${command} ${args.join(' ')}" failed with exit code ${result.status}.`);
    process.exit(result.status ?? 1);
  }
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function ensureDependencies(env) {
  const installed = join(root, 'node_modules', '.package-lock.json');
  const stale = mtime(installed) === 0 || mtime(installed) < mtime(join(root, 'package-lock.json')) || mtime(installed) < mtime(join(root, 'package.json'));
  if (!stale) return;
  // A node_modules that links to another checkout's (a second worktree, a release dir sharing one
  // install): npm ci would empty the folder it points to, under the other checkout's feet, then
  // replace the link. Leave it to whoever owns that folder.
  if (existsSync(installed) && lstatSync(join(root, 'node_modules')).isSymbolicLink()) {
    say(`node_modules links to ${realpathSync(join(root, 'node_modules'))} and looks older than package.json: not reinstalling through the link (npm ci would empty it for every checkout using it). Run npm ci there if a dependency changed.`);
    return;
  }
  say('Installing dependencies (npm ci) ...');
  run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, env });
}

function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

/** True when the session bus already offers the Secret Service (a desktop session's keyring). */
function secretServiceRunning(env) {
  if (!env.DBUS_SESSION_BUS_ADDRESS) return false;
  if (!hasCommand('dbus-send')) return true; // cannot ask; trust the desktop session as before
  const ask = (method) =>
    spawnSync('dbus-send', ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', `org.freedesktop.DBus.${method}`], { encoding: 'utf8', timeout: 5000, env }).stdout ?? '';
  return `${ask('ListNames')}${ask('ListActivatableNames')}`.includes('"org.freedesktop.secrets"');
}

/** Installs (apt-get, as root) or names what this machine lacks; exits when the mode cannot go on without it. */
function ensureSystemPackages(mode, env) {
  if (mode === 'agents') mode = 'test';
  if (mode !== 'test' && mode !== 'start') return false;
  const secretService = secretServiceRunning(env);
  const plan = planSystemPackages({
    platform: process.platform,
    mode,
    secretServiceRunning: secretService,
    has: (probe) => (probe.command ? hasCommand(probe.command) : existsSync(probe.file)),
    isRoot: process.getuid?.() === 0,
    packageManager: ['apt-get', 'dnf', 'pacman'].find(hasCommand) ?? null,
  });
  if (plan.action === 'install') {
    say(`Installing ${plan.packages.join(', ')} (apt-get) ...`);
    const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
    for (const [command, ...args] of plan.steps) {
      // Quiet unless it fails; then its output says why.
      const result = spawnSync(command, args, { env: aptEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      if (result.status !== 0) {
        process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`.split('\n').slice(-15).join('\n'));
        say(`"${command} ${args.join(' ')}" failed (exit ${result.status}); install ${plan.packages.join(' ')} yourself and run again.`);
        process.exit(1);
      }
    }
  } else if (plan.action === 'tell') {
    say(plan.message);
    if (plan.fatal) process.exit(1);
  }
  return secretService;
}

/**
 * Where the user ran the command. `npm run` (and `npm start`) move to the package root before running
 * a script and say where the user was in INIT_CWD; the CLI runs there, so `npm run patchbay -- claude`
 * starts the agent in the user's project and a relative --data-dir or --config means what it says.
 */
const userCwd = process.env.npm_lifecycle_event && process.env.INIT_CWD ? process.env.INIT_CWD : process.cwd();

/** The data dir Patchbay will use (as core/config/data-dir.ts resolves it on Linux, plus --data-dir). */
function dataDirFromArgs(args, env) {
  const index = args.findIndex((arg) => arg === '--data-dir' || arg.startsWith('--data-dir='));
  if (index !== -1) return resolve(userCwd, args[index].includes('=') ? args[index].slice('--data-dir='.length) : args[index + 1]);
  if (env.PATCHBAY_HOME) return resolve(userCwd, env.PATCHBAY_HOME);
  return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'patchbay');
}

const shellQuote = (part) => `'${String(part).replace(/'/g, `'\\''`)}'`;

const [mode = 'test', ...rest] = process.argv.slice(2);
const nodeBin = ensureNode();
const env = { ...process.env, PATH: `${nodeBin}${process.platform === 'win32' ? ';' : ':'}${process.env.PATH ?? ''}` };
ensureDependencies(env);
const hasSecretService = ensureSystemPackages(mode, env);
const node = join(nodeBin, 'node');

// `npm start` and the benchmark run core/ compiled to JavaScript (see scripts/build-core.js); the
// bin finds it through PATCHBAY_DIST. Tests run the TypeScript sources.
if (mode === 'start' || mode === 'bench') {
  try {
    env.PATCHBAY_DIST = ensureCoreBuilt(join(nodeBin, 'node'));
  } catch (error) {
    say(`${error.message}\nRunning the TypeScript sources instead.`);
  }
}
// The dashboard (served at /ui/) is built when stale for the commands that serve or open it.
if ((mode === 'start' && (rest[0] === 'serve' || rest[0] === 'ui')) || mode === 'build') {
  try {
    ensureRendererBuilt(join(nodeBin, 'node'));
  } catch (error) {
    if (mode === 'build') {
      say(`The dashboard could not be built: ${error.message}`);
      process.exit(1);
    }
    say(`The dashboard could not be built (${error.message}); the API works, /ui/ says how to build it.`);
  }
}

let command;
if (mode === 'test') command = [node, join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...rest];
else if (mode === 'agents') {
  // --latest: the newest published agents (test/agents/latest), found by the tests through PATCHBAY_AGENTS_DIR.
  const latest = rest.includes('--latest');
  if (latest) env.PATCHBAY_AGENTS_DIR = ensureLatestAgentsInstalled(env, say);
  else ensureAgentsInstalled(env, say);
  command = [node, join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', join(root, 'test', 'agents', 'vitest.config.ts'), ...rest.filter((arg) => arg !== '--latest')];
}
else if (mode === 'start') {
  command = [node, ...NODE_FLAGS, join(root, 'bin', 'patchbay.js'), ...rest];
  for (const [name, value] of Object.entries(NODE_ENV)) env[name] ??= value;
}
else if (mode === 'bench') command = [node, join(root, 'bench', 'run-bench.ts'), ...rest];
else if (mode === 'install' || mode === 'build') process.exit(0);
else {
  say(`unknown mode "${mode}" (use test, agents, start, bench, build or install)`);
  process.exit(2);
}

// The keychain tests need a Secret Service. On a Linux whose session offers none (CI, a container),
// run the suite inside a private D-Bus session with an unlocked gnome-keyring in a fresh temporary
// folder, so the run never meets (or prompts for) a keyring left by an earlier session, and never
// touches the user's own.
const keychainPackages = process.platform === 'linux' && hasCommand('dbus-run-session') && hasCommand('gnome-keyring-daemon');
if ((mode === 'test' || mode === 'agents') && process.platform === 'linux' && !hasSecretService && keychainPackages) {
  env.XDG_DATA_HOME = mkdtempSync(join(tmpdir(), 'patchbay-keyring-'));
  command = ['dbus-run-session', '--', 'sh', '-c', `echo -n pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec ${command.map(shellQuote).join(' ')}`];
}

// Patchbay on a Linux without a Secret Service (a server, a container): a private D-Bus session
// with gnome-keyring whose keyring lives in DATA_DIR/keyring, unlocked with a random password kept
// in DATA_DIR/keyring-password (0600). So "providers set-key" works and its secrets survive
// restarts. That keyring is exactly as private as the data dir: whoever can read the data dir can
// read the password and so the secrets (README "Development" says so).
// Commands that never read a provider secret (ui, keys, usage, version, help) get no keyring: one
// made for them would land in the default data dir even when the server runs on another.
// A team's replica (a secrets file, a team database) gets none either: see needsPrivateKeyring.
const needsKeyring = mode === 'start' && needsPrivateKeyring(rest, env);
if (needsKeyring && process.platform === 'linux' && !hasSecretService && keychainPackages) {
  const dataDir = dataDirFromArgs(rest, env);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const passwordFile = join(dataDir, 'keyring-password');
  if (!existsSync(passwordFile)) {
    writeFileSync(passwordFile, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
    say(`No keychain (Secret Service) in this session: provider keys you store with "providers set-key" go to a gnome-keyring in ${join(dataDir, 'keyring')}, unlocked with ${passwordFile} (as private as the data dir).`);
  }
  const keyringHome = join(dataDir, 'keyring');
  command = [
    'dbus-run-session', '--', 'sh', '-c',
    `XDG_DATA_HOME=${shellQuote(keyringHome)} gnome-keyring-daemon --unlock --components=secrets < ${shellQuote(passwordFile)} >/dev/null; exec ${command.map(shellQuote).join(' ')}`,
  ];
}

const cleanUp = () => {
  if (env.XDG_DATA_HOME && env.XDG_DATA_HOME !== process.env.XDG_DATA_HOME) rmSync(env.XDG_DATA_HOME, { recursive: true, force: true });
};
// The CLI works where the user stands; the tests and the benchmark run from the checkout.
const cwd = mode === 'start' ? userCwd : root;
if (command[0] !== 'dbus-run-session') {
  const result = spawnSync(command[0], command.slice(1), { stdio: 'inherit', env, cwd });
  cleanUp();
  if (result.error) throw result.error;
  process.exit(result.status ?? (result.signal ? 1 : 0));
} else {
  // dbus-daemon prints "Failed to set fd limit to 65536: Operation not permitted" on every start
  // where it may not raise its limit (any non-root user, a container): harmless, and it reads as
  // an error. Its stderr is passed through without that line; everything else as it comes.
  const child = spawn(command[0], command.slice(1), { stdio: ['inherit', 'inherit', 'pipe'], env, cwd });
  let pending = '';
  const noise = /^dbus-daemon\[\d+\]: .*Failed to set fd limit/;
  child.stderr.on('data', (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop();
    const kept = lines.filter((line) => !noise.test(line));
    if (kept.length) process.stderr.write(`${kept.join('\n')}\n`);
  });
  // Ctrl-C reaches the whole process group: Patchbay finishes its requests and says "stopped"; this
  // launcher waits for it instead of leaving first. A signal sent to the launcher alone is passed on.
  process.on('SIGINT', () => undefined);
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (error) => {
    cleanUp();
    throw error;
  });
  child.on('close', (code, signal) => {
    if (pending && !noise.test(pending)) process.stderr.write(pending);
    cleanUp();
    process.exit(code ?? (signal ? 1 : 0));
  });
}
