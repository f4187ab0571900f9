// The real coding agents the agent tests drive (test/agents/package.json: Claude Code and Codex CLI,
// pinned). Their npm packages carry native binaries (~760 MB installed), so they live in their own
// folder with their own lockfile, outside Patchbay's install, and are installed on first use by
// `npm run test:agents` (scripts/ensure-setup.js, mode "agents").
//
// `npm run test:agents -- --latest` runs the same tests against the newest published versions,
// installed into test/agents/latest (git-ignored, its package.json written here), so a release of
// either agent that breaks Patchbay shows up before a user meets it; the pins then move to the
// newest versions that pass (test/agents/package.json, the README's compatibility table).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const agentsDir = join(dirname(dirname(fileURLToPath(import.meta.url))), 'test', 'agents');
export const latestAgentsDir = join(agentsDir, 'latest');

/** The npm packages of the agents, as test/agents/package.json names them. */
export const AGENT_PACKAGES = ['@anthropic-ai/claude-code', '@openai/codex'];

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Runs `npm ci` in test/agents when its node_modules is missing, older than its lockfile, or holds
 * other versions than the pins (a lockfile rewritten with --package-lock-only leaves node_modules'
 * own record newer than the lock, so the dates alone would miss a moved pin).
 */
export function ensureAgentsInstalled(env, say) {
  const installed = mtime(join(agentsDir, 'node_modules', '.package-lock.json'));
  const pinned = JSON.parse(readFileSync(join(agentsDir, 'package.json'), 'utf8')).dependencies;
  const have = installedVersions(agentsDir);
  const current = installed !== 0 && installed >= mtime(join(agentsDir, 'package-lock.json')) && installed >= mtime(join(agentsDir, 'package.json'));
  if (current && AGENT_PACKAGES.every((name) => have[name] === pinned[name])) return;
  say('Installing the agents the agent tests drive (Claude Code, Codex CLI; ~760 MB) into test/agents (npm ci) ...');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: agentsDir, env, stdio: 'inherit' });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    say(`"npm ci" in test/agents failed with exit code ${result.status}.`);
    process.exit(result.status ?? 1);
  }
}

/** The newest published version of a package (`npm view`), or null when the registry cannot be asked. */
function newestVersion(name, env) {
  const result = spawnSync('npm', ['view', name, 'version'], { env, encoding: 'utf8', timeout: 60_000 });
  const version = result.status === 0 ? result.stdout.trim() : '';
  return /^\d+\.\d+\.\d+/.test(version) ? version : null;
}

/** What test/agents/latest holds now: package name -> installed version (none when absent). */
export function installedVersions(dir) {
  const out = {};
  for (const name of AGENT_PACKAGES) {
    try {
      out[name] = JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;
    } catch {
      // not installed
    }
  }
  return out;
}

/**
 * The package.json of test/agents/latest: the pinned one's, with each agent at `versions` (exact,
 * so the run says which versions it tested).
 */
export function latestManifest(pinned, versions) {
  return {
    ...pinned,
    name: 'patchbay-agent-tests-latest',
    description: 'The newest published Claude Code and Codex CLI (npm run test:agents -- --latest writes this file; git-ignored).',
    dependencies: Object.fromEntries(Object.keys(pinned.dependencies).map((name) => [name, versions[name] ?? pinned.dependencies[name]])),
  };
}

/**
 * Installs the newest published versions of the agents into test/agents/latest (npm install, when
 * what is there is not already the newest) and returns that folder. Offline, it says so in one line
 * and runs what an earlier --latest installed, or stops when there is nothing.
 */
export function ensureLatestAgentsInstalled(env, say) {
  const pinned = JSON.parse(readFileSync(join(agentsDir, 'package.json'), 'utf8'));
  const versions = {};
  for (const name of AGENT_PACKAGES) versions[name] = newestVersion(name, env);
  const have = installedVersions(latestAgentsDir);
  if (AGENT_PACKAGES.some((name) => versions[name] === null)) {
    if (AGENT_PACKAGES.every((name) => have[name])) {
      say(`The npm registry cannot be reached; running the newest agents installed earlier (${describe(have)}).`);
      return latestAgentsDir;
    }
    say('The npm registry cannot be reached, and no newest agents were installed earlier: run again online.');
    process.exit(1);
  }
  if (AGENT_PACKAGES.every((name) => have[name] === versions[name])) return latestAgentsDir;
  say(`Installing the newest agents (${describe(versions)}; ~760 MB) into test/agents/latest ...`);
  mkdirSync(latestAgentsDir, { recursive: true });
  writeFileSync(join(latestAgentsDir, 'package.json'), `${JSON.stringify(latestManifest(pinned, versions), null, 2)}\n`);
  const result = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: latestAgentsDir, env, stdio: 'inherit' });
  if (result.error) throw result.error;
  if (result.status !== 0 || !existsSync(join(latestAgentsDir, 'node_modules', '.bin', 'claude'))) {
    say(`"npm install" in test/agents/latest failed with exit code ${result.status}.`);
    process.exit(result.status || 1);
  }
  return latestAgentsDir;
}

function describe(versions) {
  return AGENT_PACKAGES.map((name) => `${name} ${versions[name]}`).join(', ');
}
