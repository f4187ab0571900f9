import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { launchAsShell, planAgentLaunch } from '../../core/agents/plan-agent-launch.ts';
import type { AgentProfiles } from '../../core/config/config-schema.ts';

/**
 * Issue 34 (5): `patchbay claude --print` and the dashboard's snippet (GET /api/agents, the same
 * launchAsShell) printed a profile value starting with `$` unquoted, so pasting the snippet ran it.
 * Here each snippet is pasted into a real POSIX shell, with a stand-in agent on PATH printing what it got.
 */
describe('agent launch snippets, pasted into sh', () => {
  const dir = mkdtempSync(join(tmpdir(), 'patchbay-snippets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  for (const name of ['claude', 'codex']) {
    const file = join(dir, name);
    writeFileSync(file, `#!/bin/sh\nenv | grep -E '^(ANTHROPIC_|CLAUDE_CODE_)' | sort\nfor a in "$@"; do echo "arg:$a"; done\n`);
    chmodSync(file, 0o755);
  }
  const paste = (snippet: string) => execFileSync('sh', ['-c', snippet], { cwd: dir, encoding: 'utf8', env: { PATH: `${dir}:/usr/bin:/bin`, PATCHBAY_KEY: 'pb-pasted' } });
  // Values no profile can hold any more (the schema refuses them), as a config written by an older Patchbay might.
  const marker = join(dir, 'pwned');
  beforeEach(() => rmSync(marker, { force: true }));
  const hostile = [`$(touch ${marker})`, `\`touch ${marker}\``, `x'; touch ${marker}; '`, '$HOME', 'a b'];

  it.each(hostile)('claude: every value is quoted, so %s stays text', (value) => {
    const profiles: AgentProfiles = { claude: { main: value, background: value, subagent: value } };
    const snippet = launchAsShell(planAgentLaunch('claude', { origin: 'http://127.0.0.1:8790', key: null, profiles }));
    const out = paste(snippet);
    expect(existsSync(marker)).toBe(false);
    expect(out).toContain(`ANTHROPIC_MODEL=${value}\n`);
    expect(out).toContain(`ANTHROPIC_DEFAULT_HAIKU_MODEL=${value}\n`);
    expect(out).toContain(`CLAUDE_CODE_SUBAGENT_MODEL=${value}\n`);
    // The key placeholder alone is left for the shell to fill in.
    expect(out).toContain('ANTHROPIC_AUTH_TOKEN=pb-pasted\n');
  });

  it.each(hostile)('codex: %s stays text inside its -c argument', (value) => {
    const snippet = launchAsShell(planAgentLaunch('codex', { origin: 'http://127.0.0.1:8790', key: null, profiles: { codex: { main: value } } }));
    const out = paste(snippet);
    expect(existsSync(marker)).toBe(false);
    expect(out).toContain(`arg:model=${JSON.stringify(value)}\n`);
  });
});
