import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'patchbay.js');

// Issue 25 (6, 7): one data dir is served by one process, the CLI finds the running server without
// being told its data dir, and the terminal says what it is doing in the user's own command.
// Each CLI run is a process of its own (several seconds each on a busy machine): generous timeouts.
describe('the CLI and the running server', () => {
  let home: string;
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let server: { child: ChildProcess; url: string; stdout: () => string; stderr: () => string; exit: Promise<number | null> };

  const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) => {
    const result = spawnSync(process.execPath, [BIN, ...args], { env: { ...env, ...extra }, encoding: 'utf8', timeout: 120_000 });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  const serve = async (args: string[]) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (d) => {
        stdout += d;
        const match = /^Patchbay listening on (http:\/\/127\.0\.0\.1:\d+)\/v1$/m.exec(stdout);
        if (match && stdout.includes('Providers with a key')) resolve(match[1]);
      });
      void exit.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    });
    return { child, url, stdout: () => stdout, stderr: () => stderr, exit };
  };

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'patchbay-one-server-'));
    dataDir = join(home, 'elsewhere');
    // No PATCHBAY_HOME: the default data dir is HOME/.local/share/patchbay, and the server uses another.
    env = { PATH: process.env.PATH, HOME: home, XDG_RUNTIME_DIR: join(home, 'run'), OPENAI_API_KEY: 'sk-one-server-test-key' };
    server = await serve(['--data-dir', dataDir]);
  });
  afterAll(async () => {
    server?.child.kill('SIGINT');
    await server?.exit;
    rmSync(home, { recursive: true, force: true });
  });

  it('the start says which providers have a key and where it comes from', () => {
    expect(server.stdout()).toMatch(/^Providers with a key: openai \(OPENAI_API_KEY\)/m);
    expect(server.stdout()).toMatch(/^Without a key: anthropic, google, groq, together/m);
    expect(server.stderr()).not.toMatch(/dbus-daemon/);
  });

  it('a second start on the same data dir is refused, naming the process that serves it', () => {
    const second = cli(['serve', '--port', '0', '--data-dir', dataDir]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`Another Patchbay (process ${server.child.pid}, ${server.url}`);
    expect(second.stderr).toContain(`already serves the data dir ${dataDir}`);
    // The first one still serves, and the CLI still finds it.
    expect(existsSync(join(dataDir, 'server.json'))).toBe(true);
  });

  it('ui and providers list without --data-dir reach the running server, creating nothing in the default data dir', () => {
    const ui = cli(['ui', '--no-open']);
    expect(ui.code).toBe(0);
    expect(ui.stdout).toContain(`Sign in: ${server.url}/ui/#code=`);
    expect(ui.stderr).toContain(`Using the Patchbay running at ${server.url} (process ${server.child.pid}, data dir ${dataDir})`);
    const list = cli(['providers', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/openai\s+openai\s+yes\s+env/);
    expect(cli(['ui', '--no-open', '--data-dir', dataDir]).stdout).toContain(`Sign in: ${server.url}/ui/`);
    expect(existsSync(join(home, '.local', 'share', 'patchbay'))).toBe(false);
  });

  it('hints name the command as the user ran it', () => {
    const empty = join(home, 'empty');
    const viaNpm = cli(['ui', '--no-open', '--data-dir', empty], { npm_lifecycle_event: 'patchbay' });
    expect(viaNpm.stderr).toContain('"npm run patchbay -- serve"');
    expect(viaNpm.stderr).not.toMatch(/"patchbay /);
    const viaNpx = cli(['ui', '--no-open', '--data-dir', empty], { npm_command: 'exec' });
    expect(viaNpx.stderr).toContain('"npx patchbay serve"');
    expect(cli(['ui', '--no-open', '--data-dir', empty]).stderr).toContain('"patchbay serve"');
  });

  it('a port held by another program is named with the program', async () => {
    const holder: Server = createServer();
    const port = await new Promise<number>((resolve) => holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)));
    try {
      const taken = cli(['serve', '--port', String(port), '--data-dir', join(home, 'other')]);
      expect(taken.code).toBe(1);
      expect(taken.stderr).toContain(`Port ${port} is already in use by`);
      expect(taken.stderr).toContain(`(pid ${process.pid})`);
    } finally {
      holder.close();
    }
  });

  it('Ctrl-C says it stopped, and frees the data dir for the next start', async () => {
    server.child.kill('SIGINT');
    expect(await server.exit).toBe(0);
    expect(server.stderr()).toMatch(/Patchbay stopped\.\n$/);
    expect(existsSync(join(dataDir, 'patchbay.lock'))).toBe(false);
    server = await serve(['--data-dir', dataDir]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});
