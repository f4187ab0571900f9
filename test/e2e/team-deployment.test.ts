import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { Agent, fetch as undiciFetch, request as undiciRequest } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureRendererBuilt } from '../../scripts/build-renderer.js';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { docsBlock, readDocsBlocks, substitute } from '../helpers/docs-blocks.ts';
import { FakeSystemd, type FakeMachine } from '../helpers/fake-systemd.ts';
import { launchChromium } from '../helpers/launch-chromium.ts';
import { startCaddy, type TestCaddy } from '../helpers/start-caddy.ts';
import { startPostgres, type TestPostgres } from '../helpers/start-postgres.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const DOCS = join(ROOT, 'docs', 'team.md');
const UPSTREAM_KEY = 'sk-team-deployment-upstream';
/** The docs' names: the public name, the replicas' addresses, the database server. */
const PUBLIC_NAME = 'patchbay.example.com';
const DOC_REPLICAS = ['10.0.0.11', '10.0.0.12'];
const IS_ROOT = process.getuid?.() === 0;

/** Two addresses on loopback (all of 127/8 is), free on the docs' port 8790, so the docs' port stays as written. */
async function replicaAddresses(): Promise<string[]> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const net = `127.${2 + Math.floor(Math.random() * 250)}.${2 + Math.floor(Math.random() * 250)}`;
    const addresses = [`${net}.11`, `${net}.12`];
    if ((await Promise.all(addresses.map((a) => portFree(a, 8790)))).every(Boolean)) return addresses;
  }
  throw new Error('no free loopback address pair for port 8790');
}
function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The unprivileged account the service runs as when the test runs as root (Debian's nobody), as the unit's User=patchbay. */
function serviceAccount(): FakeMachine['account'] {
  if (!IS_ROOT) return null;
  const [name, , uid, gid, , home] = execFileSync('getent', ['passwd', 'nobody'], { encoding: 'utf8' }).trim().split(':');
  return { name, uid: Number(uid), gid: Number(gid), home };
}

/**
 * The next release as a team gets it: this checkout copied, with one more schema migration (an
 * expand step, as docs/team.md says migrations are) and another version. Its node_modules and
 * .tools are this checkout's (a release dir of its own would have its own; `npm run build` leaves
 * a linked one alone).
 */
function prepareNextRelease(dir: string): string {
  for (const part of ['bin', 'core', 'deploy', 'docs', 'renderer', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json']) {
    cpSync(join(ROOT, part), join(dir, part), { recursive: true, preserveTimestamps: true, filter: (source) => !source.includes('/node_modules') });
  }
  for (const link of ['node_modules', '.tools']) symlinkSync(join(ROOT, link), join(dir, link));
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ ...pkg, version: '0.2.0' }, null, 2)}\n`);
  const migrations = join(dir, 'core', 'postgres', 'postgres-migrations.ts');
  const source = readFileSync(migrations, 'utf8');
  const start = source.indexOf('export const POSTGRES_MIGRATIONS');
  const end = source.indexOf('\n];\n', start);
  if (start === -1 || end === -1) throw new Error('postgres-migrations.ts no longer ends POSTGRES_MIGRATIONS with "];": update prepareNextRelease');
  writeFileSync(migrations, `${source.slice(0, end)}\n  // The next release's expand step (team deployment test).\n  \`ALTER TABLE usage ADD COLUMN upgrade_probe text;\`,${source.slice(end)}`);
  return dir;
}

describe('a team deploys Patchbay from docs/team.md: two replicas on PostgreSQL behind Caddy (TLS), rolled under load', () => {
  const blocks = readDocsBlocks(DOCS, 'team-test');
  const block = (name: string) => docsBlock(blocks, name, 'docs/team.md');
  const openai = new OpenAiEmulator({ apiKey: UPSTREAM_KEY });
  let cluster: TestPostgres;
  let systemd: FakeSystemd;
  let caddy: TestCaddy;
  let browser: Browser | undefined;
  let dir: string;
  let adminDir: string;
  let addresses: string[];
  let caddyPort: number;
  let publicUrl: string;
  let upstreamUrl: string;
  let dispatcher: Agent;
  const machines = new Map<string, FakeMachine>();
  const account = serviceAccount();

  /** Where the docs' names land on this test machine: for one replica's machine, or (null) the proxy and the admin's shell. */
  const mapFor = (machine: FakeMachine | null): Record<string, string> => {
    const map: Record<string, string> = {
      'sudo -u postgres psql': `psql -h ${cluster.socketDir} -p ${cluster.port} -U postgres`,
      'db.internal:5432': `127.0.0.1:${cluster.port}`,
      [`https://${PUBLIC_NAME}`]: publicUrl,
      'OPENAI_API_KEY=sk-...': `OPENAI_API_KEY=${UPSTREAM_KEY}`,
      // The service user: Debian's nobody when the test runs as root, else the test's own user.
      'sudo -u patchbay ': account ? `runuser -u ${account.name} -- ` : '',
      '-o root -g patchbay ': account ? '-o root -g nogroup ' : '',
      '-o patchbay -g patchbay ': account ? `-o ${account.name} -g nogroup ` : '',
      'sudo ': '',
      [DOC_REPLICAS[0]]: addresses[0],
      [DOC_REPLICAS[1]]: addresses[1],
    };
    if (!machine) return map;
    // On a replica's machine the docs' "this machine" is 10.0.0.11.
    return { ...map, ...machine.map, [DOC_REPLICAS[0]]: machine.map[DOC_REPLICAS[0]] };
  };

  /** Runs a docs block in bash (-e, pipefail) as the admin would, on a machine (its shims first on PATH) or the admin's shell. */
  const runBlock = async (name: string, machine: FakeMachine | null, prelude = ''): Promise<string> => {
    const docs = block(name);
    const script = substitute(`${prelude}${docs.text}`, mapFor(machine));
    const path = [machine ? join(dir, machine.name, 'bin') : null, process.env.PATH].filter(Boolean).join(':');
    try {
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: adminDir, env: { PATH: path, HOME: adminDir }, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 });
      return stdout;
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string; message: string };
      throw new Error(`docs/team.md:${docs.line} ("${name}"${machine ? ` on ${machine.name}` : ''}) failed: ${e.message}\n--- script ---\n${script}\n--- stdout ---\n${e.stdout}\n--- stderr ---\n${e.stderr}`);
    }
  };
  const cli = (machine: FakeMachine, name: string) => runBlock(name, machine, block('cli').text);

  beforeAll(async () => {
    ensureRendererBuilt(process.execPath);
    dir = mkdtempSync(join(tmpdir(), 'patchbay-team-'));
    // The service account reads the machines' files under here.
    chmodSync(dir, 0o755);
    adminDir = join(dir, 'admin');
    mkdirSync(adminDir);
    openai.chunkDelayMs = 60;
    upstreamUrl = await openai.start();
    cluster = await startPostgres({ superuser: 'postgres', passwords: true });
    addresses = await replicaAddresses();
    caddyPort = await freePort();
    publicUrl = `https://${PUBLIC_NAME}:${caddyPort}`;
    const nextRelease = prepareNextRelease(join(dir, 'release-0.2.0'));
    for (const [index, name] of ['replica-1', 'replica-2'].entries()) {
      const root = join(dir, name);
      const map = {
        '/opt/patchbay': join(root, 'opt', 'patchbay'),
        '/etc/patchbay': join(root, 'etc', 'patchbay'),
        '/etc/systemd/system': join(root, 'etc', 'systemd', 'system'),
        '/var/lib/patchbay': join(root, 'var', 'lib', 'patchbay'),
        [DOC_REPLICAS[0]]: addresses[index],
      };
      for (const folder of ['opt/patchbay/releases', 'etc/systemd/system', 'var/lib', 'log']) mkdirSync(join(root, folder), { recursive: true });
      // What "git clone --branch v0.1.0 ... /opt/patchbay/releases/0.1.0" (and 0.2.0 later) leaves: the releases.
      symlinkSync(ROOT, join(root, 'opt', 'patchbay', 'releases', '0.1.0'));
      symlinkSync(nextRelease, join(root, 'opt', 'patchbay', 'releases', '0.2.0'));
      for (const folder of [root, join(root, 'opt'), join(root, 'opt', 'patchbay'), join(root, 'opt', 'patchbay', 'releases'), join(root, 'etc'), join(root, 'var'), join(root, 'var', 'lib')]) chmodSync(folder, 0o755);
      machines.set(name, { name, map, account, logDir: join(root, 'log') });
    }
    systemd = new FakeSystemd(machines);
    await systemd.start();
    for (const machine of machines.values()) systemd.installShims(machine.name, join(dir, machine.name, 'bin'));
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await caddy?.stop();
    await systemd?.close();
    await openai.close();
    await dispatcher?.close();
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 300_000);

  it("docs/team.md's unit is deploy/patchbay.service, which systemd-analyze verifies, with bin/patchbay.js's node flags", async () => {
    const unit = block('unit').text;
    expect(unit).toBe(readFileSync(join(ROOT, 'deploy', 'patchbay.service'), 'utf8'));
    const { stdout, stderr } = await run('systemd-analyze', ['verify', join(ROOT, 'deploy', 'patchbay.service')], { cwd: tmpdir() });
    expect(`${stdout}${stderr}`).toBe('');
    const shebang = readFileSync(join(ROOT, 'bin', 'patchbay.js'), 'utf8').split('\n')[0];
    const { NODE_FLAGS, NODE_ENV } = await import('../../bin/node-flags.js');
    expect(unit).toContain(`ExecStart=/usr/bin/env node ${NODE_FLAGS.join(' ')} /opt/patchbay/current/bin/patchbay.js serve`);
    for (const [name, value] of Object.entries(NODE_ENV)) expect(unit).toContain(`Environment=${name}=${value}`);
    expect(shebang).toContain(NODE_FLAGS.join(' '));
  });

  it("creates the database with the docs' SQL (role, owner, schema grants)", async () => {
    await runBlock('create-database', null);
    expect(await cluster.psql(`SELECT datname || ':' || pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'patchbay'`)).toBe('patchbay:patchbay\n');
  });

  it('installs the release, the files and the service on each machine: each replica runs as an unprivileged user, says which database (no password) and which public URL, makes no key and starts no keyring', async () => {
    for (const machine of machines.values()) {
      await runBlock('release', machine);
      await runBlock('replica-files', machine);
      const config = JSON.parse(substitute(block('config.json').text, mapFor(machine))) as Record<string, unknown>;
      // The provider's endpoint: the test's emulator instead of api.openai.com (the first replica seeds the team's config from it).
      writeFileSync(join(adminDir, 'config.json'), JSON.stringify({ ...config, providers: { openai: { baseUrl: `${upstreamUrl}/v1` } } }, null, 2));
      await runBlock('config', machine);
      const started = await runBlock('service', machine);
      expect(started).toContain('{"status":"ready"}');
      const journal = systemd.journal(machine.name, 'patchbay');
      expect(journal).toContain(`postgres://patchbay:***@127.0.0.1:${cluster.port}/patchbay`);
      expect(journal).not.toContain('change-me');
      expect(journal).toContain(`Public URL: ${publicUrl}`);
      expect(journal).toMatch(/No Patchbay key exists yet\. Create the first in a terminal/);
      expect(journal).not.toMatch(/pb-[A-Za-z0-9_-]{20,}/);
      expect(journal).not.toMatch(/#code=/);
      const pid = systemd.pid(machine.name, 'patchbay')!;
      if (account) expect(readFileSync(`/proc/${pid}/status`, 'utf8')).toMatch(new RegExp(`^Uid:\\s+${account.uid}\\s`, 'm'));
      // No D-Bus session, no gnome-keyring: the replica has no child process at all.
      expect(execFileSync('sh', ['-c', `pgrep -P ${pid} || true`], { encoding: 'utf8' }).trim()).toBe('');
    }
  });

  it("Caddy, from the docs' Caddyfile, serves the replicas over TLS with its local CA", async () => {
    caddy = await startCaddy(substitute(block('Caddyfile').text, mapFor(null)), { dir: join(dir, 'caddy'), httpsPort: caddyPort, httpPort: await freePort(), serverName: PUBLIC_NAME });
    // Trusted as a team member's machine trusts it: Caddy's root CA, from its data dir.
    dispatcher = new Agent({
      connect: {
        ca: caddy.rootCertPem,
        lookup: ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
          options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4)) as unknown as LookupFunction,
      },
    });
    const health = await undiciRequest(`${publicUrl}/health`, { dispatcher });
    expect([health.statusCode, await health.body.json()]).toEqual([200, { status: 'ready' }]);
  });

  let key: string;
  it("makes the first key with the docs' command: printed there once, never in a replica's log", async () => {
    const printed = await cli(machines.get('replica-1')!, 'first-key');
    key = /^(pb-\S+)$/m.exec(printed)![1];
    for (const machine of machines.values()) expect(systemd.journal(machine.name, 'patchbay')).not.toContain(key);
    const client = clientFor(key);
    const answer = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'first through Caddy' }] });
    expect(answer.choices[0].message.content).toBe('You said: first through Caddy');
  });

  const clientFor = (secret: string) =>
    new OpenAI({ baseURL: `${publicUrl}/v1`, apiKey: secret, maxRetries: 0, fetch: ((url: string, init: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher })) as unknown as typeof fetch });

  let page: Page;
  it("signs in to the dashboard in Chromium through Caddy with the docs' command; links and code use the public URL; other origins are refused", async () => {
    const signIn = await cli(machines.get('replica-2')!, 'sign-in');
    const link = /^Sign in: (\S+)$/m.exec(signIn)![1];
    expect(link.startsWith(`${publicUrl}/ui/#code=`)).toBe(true);
    // Chromium trusts Caddy's root CA through an NSS database of its own (HOME), and finds the public name on loopback.
    const home = join(dir, 'chromium-home');
    mkdirSync(join(home, '.pki', 'nssdb'), { recursive: true });
    execFileSync('certutil', ['-d', `sql:${join(home, '.pki', 'nssdb')}`, '-N', '--empty-password']);
    execFileSync('certutil', ['-d', `sql:${join(home, '.pki', 'nssdb')}`, '-A', '-t', 'C,,', '-n', 'Caddy local CA (team deployment test)', '-i', caddy.rootCertPath]);
    browser = await launchChromium({ args: [`--host-resolver-rules=MAP ${PUBLIC_NAME} 127.0.0.1`], env: { HOME: home } });
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(60_000);
    page = await context.newPage();
    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(page.url().startsWith(`${publicUrl}/ui/`)).toBe(true);
    // The base URL and the copy-ready code point at the public URL, not a replica.
    await page.getByText(`${publicUrl}/v1`, { exact: true }).first().waitFor();
    expect(await page.content()).not.toMatch(new RegExp(addresses.map((a) => a.replaceAll('.', '\\.')).join('|')));
    // A write from the page (its Origin is the public one): create a key on Keys.
    await page.getByRole('link', { name: 'Keys' }).click();
    const form = page.getByRole('form', { name: 'Create a key' });
    await form.getByLabel('Name', { exact: true }).fill('bob');
    await form.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog');
    expect((await dialog.getByTestId('new-secret').textContent())!.trim()).toMatch(/^pb-/);
    await dialog.getByRole('button', { name: 'I have copied it' }).click();
    // Every other origin is refused, the same name over http included.
    for (const origin of ['https://evil.example.com', `http://${PUBLIC_NAME}:${caddyPort}`, `https://${PUBLIC_NAME}`]) {
      const refused = await undiciRequest(`${publicUrl}/api/session`, { method: 'POST', dispatcher, headers: { origin, 'content-type': 'application/json' }, body: '{"code":"x"}' });
      expect([origin, refused.statusCode]).toEqual([origin, 403]);
      await refused.body.dump();
    }
  });

  it('rolls both replicas under steady load, a restart and then an upgrade with a schema change, and no request fails', async () => {
    const client = clientFor(key);
    const prompt = 'rolling load one two three four five six seven eight';
    const expected = `You said: ${prompt}`;
    const failures: string[] = [];
    const answered: string[] = [];
    let running = true;
    const worker = async (stream: boolean) => {
      while (running) {
        try {
          if (stream) {
            const { data, response } = await client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: prompt }] }).withResponse();
            let text = '';
            for await (const chunk of data) text += chunk.choices[0]?.delta?.content ?? '';
            if (text !== expected) failures.push(`stream ended early: ${JSON.stringify(text)}`);
            else answered.push(response.headers.get('x-patchbay-request-id')!);
          } else {
            const { data, response } = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: prompt }] }).withResponse();
            if (data.choices[0].message.content !== expected) failures.push(`wrong answer: ${data.choices[0].message.content}`);
            else answered.push(response.headers.get('x-patchbay-request-id')!);
          }
        } catch (error) {
          failures.push(`${(error as Error).message}`);
        }
      }
    };
    const workers = [worker(true), worker(true), worker(false), worker(false)];
    const counted: Record<string, number> = {};
    const step = async (label: string, action: () => Promise<unknown>) => {
      const before = answered.length;
      await action();
      counted[label] = answered.length - before;
    };
    const [one, two] = [...machines.values()];
    await step('steady', () => new Promise((resolve) => setTimeout(resolve, 1500)));
    await step('restart replica-1', () => runBlock('rolling-restart', one));
    await step('restart replica-2', () => runBlock('rolling-restart', two));
    await step('upgrade replica-1', () => runBlock('upgrade', one));
    // Mid-rollout the replica still on the old release restarts (a crash, a reboot) on the expanded schema.
    await step('restart replica-2 on the old release', () => runBlock('rolling-restart', two));
    await step('upgrade replica-2', () => runBlock('upgrade', two));
    await step('after', () => new Promise((resolve) => setTimeout(resolve, 1500)));
    running = false;
    await Promise.all(workers);

    expect(failures).toEqual([]);
    for (const [label, count] of Object.entries(counted)) expect(count, `answers during "${label}"`).toBeGreaterThan(0);
    expect(systemd.events.filter(([, , what]) => what.startsWith('exited on its own'))).toEqual([]);
    const db = new pg.Client({ connectionString: `postgres://patchbay:change-me@127.0.0.1:${cluster.port}/patchbay` });
    await db.connect();
    try {
      const schema = (await db.query('SELECT version, written_by FROM schema_version')).rows[0];
      expect(schema.written_by).toBe('0.2.0');
      // Every answered request's usage row was written, by whichever replica served it, stops included.
      // The replicas write in batches every 50 ms, so the last answers' rows may still be on their way: a
      // row lost at a stop never comes, however long this waits.
      const missing = async () => {
        const stored = new Set((await db.query<{ request_id: string }>('SELECT request_id FROM usage WHERE request_id = ANY($1)', [answered])).rows.map((r) => r.request_id));
        return answered.filter((id) => !stored.has(id));
      };
      for (let waited = 0; waited < 5000 && (await missing()).length > 0; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await missing()).toEqual([]);
    } finally {
      await db.end();
    }
    for (const machine of machines.values()) {
      const journal = systemd.journal(machine.name, 'patchbay');
      expect(journal).toContain('Patchbay 0.2.0 on PostgreSQL');
      // Each stop drained first: Caddy polls /health, so the replica served on while it said "draining".
      expect(journal).toMatch(/Draining: \/health says "draining"/);
    }
    // The old release, restarted on the database the new one had expanded, started and said so.
    expect(systemd.journal('replica-2', 'patchbay')).toMatch(/newer than this Patchbay's \(0\.1\.0, schema \d+\) and still works with it/);
    console.log(`rolling under load: ${answered.length} answers, ${JSON.stringify(counted)}`);
  });

  it("backs up with the docs' pg_dump and restores into an empty database owned by the user (--no-owner)", async () => {
    await runBlock('backup', machines.get('replica-1')!);
    expect(existsSync(join(adminDir, 'patchbay.dump'))).toBe(true);
    await runBlock('restore', null);
    const restored = new pg.Client({ connectionString: `postgres://patchbay:change-me@127.0.0.1:${cluster.port}/patchbay_restored` });
    await restored.connect();
    try {
      expect((await restored.query('SELECT name FROM api_keys ORDER BY created_at')).rows.map((r) => r.name)).toEqual(['alice', 'bob']);
      expect((await restored.query('SELECT count(*)::int AS n FROM usage')).rows[0].n).toBeGreaterThan(0);
    } finally {
      await restored.end();
    }
  });
});
