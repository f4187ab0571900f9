// The real coding agents the agent tests drive (test/agents/package.json: Claude Code and Codex CLI,
// pinned). Their npm packages carry native binaries (~760 MB installed), so they live in their own
// folder with their own lockfile, outside Patchbay's install, and are installed on first use by
// `npm run test:agents` (scripts/ensure-setup.js, mode "agents").
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const agentsDir = join(dirname(dirname(fileURLToPath(import.meta.url))), 'test', 'agents');

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** Runs `npm ci` in test/agents when its node_modules is missing or older than its lockfile. */
export function ensureAgentsInstalled(env, say) {
  const installed = mtime(join(agentsDir, 'node_modules', '.package-lock.json'));
  if (installed !== 0 && installed >= mtime(join(agentsDir, 'package-lock.json')) && installed >= mtime(join(agentsDir, 'package.json'))) return;
  say('Installing the agents the agent tests drive (Claude Code, Codex CLI; ~760 MB) into test/agents (npm ci) ...');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: agentsDir, env, stdio: 'inherit' });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    say(`"npm ci" in test/agents failed with exit code ${result.status}.`);
    process.exit(result.status ?? 1);
  }
}
