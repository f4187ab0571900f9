import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../core/cli/run-cli.ts';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'patchbay.js');
const home = mkdtempSync(join(tmpdir(), 'patchbay-help-'));

function cli(args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, PATCHBAY_HOME: home }, encoding: 'utf8', timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('--help on every command and subcommand', () => {
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('patchbay serve --help prints the usage and exits 0 instead of starting a server', () => {
    const result = cli(['serve', '--help']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/patchbay serve \[--port N\][\s\S]*--host H/);
  });

  // Each prints that command's usage (naming its own flags) on stdout and exits 0, touching nothing.
  it.each([
    [['keys', '--help'], /patchbay keys create[\s\S]*patchbay keys revoke ID/],
    [['keys', 'create', '--help'], /patchbay keys create --name NAME[\s\S]*--expires[\s\S]*--usd-cap/],
    [['keys', 'create', '-h'], /patchbay keys create --name NAME/],
    [['keys', 'update', '--help'], /patchbay keys update ID[\s\S]*"none"/],
    [['keys', 'list', '--help'], /patchbay keys list \[--json\]/],
    [['keys', 'rotate', '--help'], /patchbay keys rotate ID/],
    [['keys', 'revoke', '--help'], /patchbay keys revoke ID/],
    [['providers', '--help'], /patchbay providers list[\s\S]*set-key NAME/],
    [['providers', 'list', '--help'], /patchbay providers list \[--json\]/],
    [['providers', 'set-key', '--help'], /patchbay providers set-key NAME[\s\S]*standard input/],
    [['providers', 'delete-key', '--help'], /patchbay providers delete-key NAME/],
    [['providers', 'test', '--help'], /patchbay providers test NAME/],
    [['usage', '--help'], /patchbay usage \[--month YYYY-MM\][\s\S]*--export csv\|json/],
    [['help', 'keys'], /Key settings:[\s\S]*--rpm N +requests per minute/],
    [['agents', '--help'], /patchbay agents set claude \[--main MODEL\][\s\S]*CLAUDE_CODE_SUBAGENT_MODEL/],
    [['help', 'claude'], /patchbay claude \[--key KEY\][\s\S]*CLAUDE_CODE_AUTO_COMPACT_WINDOW/],
    [['help', 'codex'], /patchbay codex \[--key KEY\][\s\S]*model_context_window/],
    [['keys', '--data-dir', home, 'create', '--help'], /patchbay keys create --name NAME/],
  ])('patchbay %j', async (args, expected) => {
    const result = { code: 0, stdout: '', stderr: '' };
    result.code = await runCli(args, { out: (t) => (result.stdout += t), err: (t) => (result.stderr += t), env: { PATCHBAY_HOME: home } });
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(expected);
    expect(result.code).toBe(0);
  });

  it('a subcommand\'s help names the options every command takes, and the bin exits 0 with it', () => {
    const result = cli(['keys', 'create', '--help']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('--data-dir DIR');
  });
});
