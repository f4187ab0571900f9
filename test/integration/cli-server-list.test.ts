import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'patchbay.js');
const SECRET = 'sk-proj-must-never-leave-this-user-0123456789';
const NOBODY = 65534;
const root = process.getuid?.() === 0;

/** What another local user's server saw: every request, with its headers and body. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * Issue 34 (3): the CLI's list of running servers (TMPDIR/patchbay-UID without XDG_RUNTIME_DIR) was
 * trusted whoever owned it, so another account could plant an entry and `providers set-key` sent the
 * secret to that account's server; and a data dir's server.json was trusted to name our own server.
 * The "other user's server" here answers as Patchbay's management API would, and records what it got.
 */
describe('the CLI trusts only its own list of servers, and only a server that proves it holds the data dir', () => {
  let work: string;
  let seen: Seen[];
  let impostor: Server;
  let impostorUrl: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'patchbay-server-list-'));
    chmodSync(work, 0o755);
    seen = [];
    impostor = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        res.setHeader('content-type', 'application/json');
        res.end(req.url === '/api/hello' ? '{"ok":true}' : req.url === '/api/routing' ? '{"strategy":"balanced"}' : '{"name":"openai","key_source":"keychain"}');
      });
    });
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    impostorUrl = `http://127.0.0.1:${(impostor.address() as { port: number }).port}`;
  });
  afterEach(() => {
    seen.length = 0;
  });
  afterAll(async () => {
    await new Promise((resolve) => impostor.close(resolve));
    rmSync(work, { recursive: true, force: true });
  });

  /** A data dir served (so its server.json says) by the impostor, under a live process id (this one). */
  const impostorDataDir = (name: string) => {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'server.json'), JSON.stringify({ pid: process.pid, url: impostorUrl }));
    writeFileSync(join(dir, 'admin-token'), `pba-${'t'.repeat(43)}\n`, { mode: 0o600 });
    return dir;
  };

  const setKey = (env: NodeJS.ProcessEnv, args: string[] = []) => cli(env, ['providers', 'set-key', 'openai', ...args]);
  const cli = (env: NodeJS.ProcessEnv, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, PATCHBAY_KEYCHAIN_SERVICE: `patchbay-server-list-${process.pid}`, ...env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(`${SECRET}\n`);
    });

  const reachedImpostor = () => seen.filter((r) => r.url !== '/api/hello' || r.headers.authorization !== undefined);

  it.runIf(root)("ignores a list folder owned by another user, saying why, and sends nothing to the server it names", async () => {
    const temp = join(work, 'tmp-foreign');
    const list = join(temp, `patchbay-${process.getuid!()}`);
    mkdirSync(list, { recursive: true, mode: 0o755 });
    const theirs = impostorDataDir('their-data');
    writeFileSync(join(list, `${process.pid}.json`), JSON.stringify({ pid: process.pid, url: impostorUrl, data_dir: theirs }));
    chownSync(list, NOBODY, NOBODY);
    const home = join(work, 'home-foreign');
    mkdirSync(home);
    const result = await setKey({ HOME: home, TMPDIR: temp });
    expect(reachedImpostor()).toEqual([]);
    expect(JSON.stringify(seen)).not.toContain(SECRET);
    expect(result.stderr).toContain(`Not using the list of running Patchbay servers in ${list}: it belongs to another user (uid ${NOBODY})`);
    expect(result.stderr).not.toContain(impostorUrl);
  });

  it('ignores a list folder others can read or write (mode 755 or 777), even one of its own', async () => {
    for (const mode of [0o755, 0o777]) {
      const temp = join(work, `tmp-${mode.toString(8)}`);
      const list = join(temp, `patchbay-${process.getuid!()}`);
      mkdirSync(list, { recursive: true });
      chmodSync(list, mode);
      writeFileSync(join(list, `${process.pid}.json`), JSON.stringify({ pid: process.pid, url: impostorUrl, data_dir: impostorDataDir(`data-${mode}`) }));
      const home = join(work, `home-${mode.toString(8)}`);
      mkdirSync(home);
      const result = await setKey({ HOME: home, TMPDIR: temp });
      expect(reachedImpostor()).toEqual([]);
      expect(result.stderr).toContain(`Not using the list of running Patchbay servers in ${list}: its mode is ${mode.toString(8)}, not 700`);
    }
  });

  it("sends nothing, not even the admin token, to a server that cannot prove it holds the data dir's admin token", async () => {
    // Our own data dir, whose server.json names a port another program now listens on (our server died; pid reused).
    const dataDir = impostorDataDir('our-stale-data');
    const result = await setKey({ HOME: join(work, 'home-stale') }, ['--data-dir', dataDir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`The server at ${impostorUrl} did not prove it is the Patchbay of ${dataDir}`);
    // One unauthenticated hello carrying a challenge, and nothing else: no token, no secret.
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/hello']);
    expect(seen[0].headers.authorization).toBeUndefined();
    expect(JSON.stringify(seen)).not.toContain(SECRET);
    expect(JSON.stringify(seen)).not.toContain('t'.repeat(43));
  });

  it('patchbay models update does the same: no admin token to a server that cannot prove it is this data dir\'s', async () => {
    const dataDir = impostorDataDir('our-stale-models');
    const result = await cli({ HOME: join(work, 'home-models') }, ['models', 'update', '--data-dir', dataDir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`The server at ${impostorUrl} did not prove it is the Patchbay of ${dataDir}`);
    expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /api/hello']);
    expect(seen[0].headers.authorization).toBeUndefined();
    expect(JSON.stringify(seen)).not.toContain('t'.repeat(43));
  });
});
