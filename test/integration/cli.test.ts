import OpenAI from 'openai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildCore } from '../../scripts/build-core.js';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'patchbay.js');
const UPSTREAM_KEY = 'sk-test-cli-upstream';

function cli(args: string[], env: NodeJS.ProcessEnv) {
  const result = spawnSync(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Starts `patchbay serve` as a user would and waits for its listening line. */
async function serve(args: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string; stderr: () => string; exit: Promise<number | null> }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { env: { PATH: process.env.PATH, ...env } });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      stdout += d;
      const match = /^Patchbay listening on (http:\/\/127\.0\.0\.1:\d+\/v1)$/m.exec(stdout);
      if (match) resolve(match[1]);
    });
    void exit.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  return { child, url, stderr: () => stderr, exit };
}

// The CLI as the tests' sources run it, and as `npm start` runs it: core/ compiled to JavaScript
// (scripts/build-core.js), found by the bin through PATCHBAY_DIST.
describe.each([
  ['from the TypeScript sources', false],
  ['from core compiled to JavaScript', true],
])('the patchbay CLI, %s', (_how, compiled) => {
  const emulator = new OpenAiEmulator({ apiKey: UPSTREAM_KEY });
  let home: string;
  let dist: string | null = null;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const upstream = await emulator.start();
    home = mkdtempSync(join(tmpdir(), 'patchbay-cli-'));
    writeFileSync(join(home, 'config.json'), JSON.stringify({ providers: { openai: { baseUrl: `${upstream}/v1` } } }));
    env = { PATCHBAY_HOME: home, OPENAI_API_KEY: UPSTREAM_KEY };
    if (compiled) {
      // Inside the project, so the compiled files find node_modules as dist/ does.
      dist = buildCore(mkdtempSync(join(ROOT, 'dist-test-')));
      env.PATCHBAY_DIST = dist;
    }
  });
  afterAll(async () => {
    await emulator.close();
    rmSync(home, { recursive: true, force: true });
    if (dist) rmSync(dist, { recursive: true, force: true });
  });

  it('serves on 127.0.0.1, prints the first key once, and finishes in-flight requests on SIGTERM', async () => {
    const first = await serve([], env);
    const key = /^\s+(pb-\S+)$/m.exec(first.stderr())?.[1];
    expect(key).toBeDefined();
    const client = new OpenAI({ baseURL: first.url, apiKey: key!, maxRetries: 0 });
    emulator.latencyMs = 2000;
    const sent = emulator.count('/chat/completions');
    const inFlight = client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'slow one' }] });
    // SIGTERM once the upstream has the request (it answers 2 s later): the request is in flight.
    await vi.waitFor(() => expect(emulator.count('/chat/completions')).toBe(sent + 1), { timeout: 60_000, interval: 10 });
    first.child.kill('SIGTERM');
    const answer = await inFlight;
    emulator.latencyMs = 0;
    expect(answer.choices[0].message.content).toBe('You said: slow one');
    expect(await first.exit).toBe(0);
    // Its usage rows went through the writer thread, which started and never fell back.
    expect(first.stderr()).not.toMatch(/writer thread/i);

    // A second start prints no new key: the first one still works, and its usage row was saved.
    const second = await serve([], env);
    expect(second.stderr()).not.toContain('pb-');
    const models = await new OpenAI({ baseURL: second.url, apiKey: key!, maxRetries: 0 }).models.list();
    expect(models.data.length).toBeGreaterThan(5);
    second.child.kill('SIGINT');
    expect(await second.exit).toBe(0);
    const usage = JSON.parse(cli(['usage', '--json'], env).stdout);
    expect(usage.rows).toEqual([expect.objectContaining({ group: 'openai/gpt-4o', requests: 1 })]);
    expect(usage.total.total_tokens).toBeGreaterThan(0);
  });

  it('creates, lists and revokes keys; create prints only the key on stdout', async () => {
    const created = cli(['keys', 'create', '--name', 'editor'], env);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^pb-[A-Za-z0-9_-]{32}\n$/);
    const list = JSON.parse(cli(['keys', 'list', '--json'], env).stdout) as { id: string; name: string; hint: string }[];
    const editor = list.find((k) => k.name === 'editor')!;
    expect(editor.hint).toBe(`${created.stdout.slice(0, 7)}...`);
    expect(cli(['keys', 'list'], env).stdout).toMatch(new RegExp(`${editor.id}\\s+editor\\s+pb-\\S+\\.\\.\\.\\s+active`));

    const server = await serve([], env);
    const client = new OpenAI({ baseURL: server.url, apiKey: created.stdout.trim(), maxRetries: 0 });
    await expect(client.models.list()).resolves.toBeTruthy();
    expect(cli(['keys', 'revoke', editor.id], env).code).toBe(0);
    // The running server sees the revocation made by another process at once.
    await expect(client.models.list()).rejects.toMatchObject({ status: 401 });
    server.child.kill('SIGTERM');
    await server.exit;
    expect(cli(['keys', 'revoke', 'key_missing'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('No key has the id') });
  });

  it('creates keys with limits, updates and rotates them from the command line', () => {
    const created = cli(['keys', 'create', '--name', 'limited', '--rpm', '30', '--tpm', '5000', '--token-cap', '100000', '--usd-cap', '2.5', '--models', 'gpt-4o-mini,llama-3.3-70b', '--expires', '2030-01-31'], env);
    expect(created.code).toBe(0);
    const find = () => (JSON.parse(cli(['keys', 'list', '--json'], env).stdout) as Record<string, unknown>[]).find((k) => k.name === 'limited')!;
    expect(find()).toMatchObject({
      rpm_limit: 30,
      tpm_limit: 5000,
      monthly_token_cap: 100000,
      monthly_usd_cap: 2.5,
      allowed_models: ['gpt-4o-mini', 'llama-3.3-70b'],
      expires_at: '2030-01-31T00:00:00.000Z',
    });
    const id = find().id as string;
    expect(cli(['keys', 'update', id, '--rpm', 'none', '--usd-cap', '5'], env).code).toBe(0);
    expect(find()).toMatchObject({ rpm_limit: null, monthly_usd_cap: 5, tpm_limit: 5000 });
    const rotated = cli(['keys', 'rotate', id], env);
    expect(rotated.stdout).toMatch(/^pb-\S+\n$/);
    expect(rotated.stdout).not.toBe(created.stdout);
    expect(find()).toMatchObject({ id, hint: `${rotated.stdout.slice(0, 7)}...`, tpm_limit: 5000 });
    expect(cli(['keys', 'update', id, '--rpm', 'lots'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('--rpm must be a number') });
    expect(cli(['keys', 'update', id, '--rpm=-4'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining("Invalid 'rpm_limit'") });
  });

  it('refuses an invalid config file, naming the path and every bad field', () => {
    const bad = join(home, 'bad.json');
    writeFileSync(bad, JSON.stringify({ server: { port: 'eighty' }, providers: { openai: { baseUrl: 'not a url' }, mine: {} } }));
    const result = cli(['serve', '--config', bad], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(bad);
    expect(result.stderr).toContain('server.port');
    expect(result.stderr).toContain('providers.openai.baseUrl');
    const broken = join(home, 'broken.json');
    writeFileSync(broken, '{ "providers": ');
    expect(cli(['serve', '--config', broken], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('not valid JSON') });
  });

  it('explains command-line mistakes in one line', () => {
    expect(cli(['serve', '--port', 'abc'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('--port must be') });
    expect(cli(['keys', 'create'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('--name') });
    expect(cli(['usage', '--month', '2026-13'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('2026-11') });
    expect(cli(['frobnicate'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('Unknown command') });
    expect(cli(['--help'], env).stdout).toContain('patchbay serve');
  });
});
