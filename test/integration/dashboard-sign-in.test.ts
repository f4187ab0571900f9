import OpenAI from 'openai';
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request, type Agent as HttpAgent } from 'node:http';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => any;
}

/** One HTTP request with exactly the headers given (fetch would add or forbid some, such as Host and Origin). */
function call(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers: { ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text, json: () => JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** The same, through a given agent (its kept-alive connection), telling which socket carried it. */
function callWith(agent: HttpAgent, base: string, method: string, path: string, headers: Record<string, string>, body: unknown, onSocket: (socket: unknown) => void): Promise<Answer> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { agent, method, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text, json: () => JSON.parse(text) }));
    });
    req.on('socket', onSocket);
    req.on('error', reject);
    req.end(payload);
  });
}

const codeOf = (url: string) => new URL(url).hash.replace(/^#code=/, '');

describe('signing in to the dashboard with a one-time link', () => {
  const clock = { t: Date.UTC(2026, 10, 1, 9), now: () => clock.t };
  let pb: TestPatchbay;
  let base: string;
  let own: Record<string, string>;

  /**
   * Signs in as the dashboard page does; returns the Cookie header, and `session`: the headers the
   * page sends afterwards (the cookie and its own half in X-Patchbay-Session).
   */
  const signIn = async (code: string) => {
    const answer = await call(base, 'POST', '/api/session', own, { code });
    expect(answer.status, answer.text).toBe(200);
    const cookie = String(answer.headers['set-cookie']).split(';')[0];
    const token = answer.json().token as string;
    return { answer, cookie, token, session: { cookie, 'x-patchbay-session': token } };
  };

  beforeAll(async () => {
    pb = await startPatchbay({ dashboard: { now: clock.now, dir: mkdtempSync(join(tmpdir(), 'patchbay-no-dashboard-')) } });
    base = pb.patchbay.url;
    own = { origin: base };
  });
  afterAll(async () => {
    await pb?.stop();
  });

  it('exchanges the code in the sign-in link for a session of two halves, a cookie and a page token, that together open the management API', async () => {
    const url = pb.patchbay.createSignInUrl();
    expect(url).toMatch(new RegExp(`^${base}/ui/#code=[A-Za-z0-9_-]{22,}$`));
    expect(url).not.toContain(pb.patchbay.adminToken);

    const { answer, cookie, token, session } = await signIn(codeOf(url));
    // Exactly these flags: no Secure (plain http on loopback would never send it back), no Domain.
    expect(answer.headers['set-cookie']).toEqual([expect.stringMatching(/^patchbay_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=604800$/)]);
    expect(answer.json()).toEqual({ token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), header: 'X-Patchbay-Session', expires_in_s: 604800 });
    expect(cookie).not.toContain(token);

    const keys = await call(base, 'GET', '/api/keys', session);
    expect(keys.status, keys.text).toBe(200);
    expect(keys.json().data.map((k: { name: string }) => k.name)).toContain('default');
    expect((await call(base, 'GET', '/api/session', session)).json()).toEqual({ signed_in: true });
    // Either half alone opens nothing: the cookie reaches every local server the browser visits.
    expect((await call(base, 'GET', '/api/keys', { cookie })).status).toBe(401);
    expect((await call(base, 'GET', '/api/keys', { cookie, origin: base })).status).toBe(401);
    expect((await call(base, 'POST', '/api/keys', { cookie, origin: base }, { name: 'stolen' })).status).toBe(401);
    expect((await call(base, 'GET', '/api/keys', { 'x-patchbay-session': token })).status).toBe(401);
    expect((await call(base, 'GET', '/api/keys', { authorization: `Bearer ${token}` })).status).toBe(401);
    // Without any credential the call is refused, and the message names both ways in.
    const refused = await call(base, 'GET', '/api/keys');
    expect(refused.status).toBe(401);
    expect(refused.json().error.message).toMatch(/admin token.*patchbay ui/s);
    expect((await call(base, 'GET', '/api/session')).status).toBe(401);
  });

  it('accepts a code only once', async () => {
    const code = codeOf(pb.patchbay.createSignInUrl());
    await signIn(code);
    const again = await call(base, 'POST', '/api/session', own, { code });
    expect(again.status).toBe(401);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect(again.json().error).toMatchObject({ code: 'invalid_sign_in_code', param: 'code' });
    expect(again.json().error.message).toMatch(/patchbay ui/);
  });

  it('refuses a code after 10 minutes', async () => {
    const fresh = codeOf(pb.patchbay.createSignInUrl());
    const stale = codeOf(pb.patchbay.createSignInUrl());
    clock.t += 9 * 60_000;
    await signIn(fresh);
    clock.t += 60_000;
    const late = await call(base, 'POST', '/api/session', own, { code: stale });
    expect(late.status).toBe(401);
    expect(late.json().error.code).toBe('invalid_sign_in_code');
  });

  it('answers a sign-in without a code with a 400 naming the field', async () => {
    const answer = await call(base, 'POST', '/api/session', own, { token: 'x' });
    expect(answer.status).toBe(400);
    expect(answer.json().error).toMatchObject({ type: 'invalid_request_error', param: 'code' });
  });

  it('gives fresh codes to the admin token only, with a link to this server', async () => {
    const minted = await call(base, 'POST', '/api/session/code', { authorization: `Bearer ${pb.patchbay.adminToken}` });
    expect(minted.status, minted.text).toBe(200);
    const { code, url, expires_at } = minted.json();
    expect(url).toBe(`${base}/ui/#code=${code}`);
    expect(Date.parse(expires_at) - clock.t).toBe(10 * 60_000);
    const { session } = await signIn(code);
    const bySession = await call(base, 'POST', '/api/session/code', { ...session, ...own });
    expect(bySession.status).toBe(403);
    expect(bySession.text).not.toMatch(/"code":"[A-Za-z0-9_-]{22}"/);
  });

  it('lets a cookie write only from Patchbay\'s own origin (CSRF); the admin token keeps working without one', async () => {
    const { session } = await signIn(codeOf(pb.patchbay.createSignInUrl()));
    const before = pb.patchbay.keys.list().length;
    const body = { name: 'from-the-dashboard' };

    const noOrigin = await call(base, 'POST', '/api/keys', session, body);
    expect(noOrigin.status).toBe(403);
    expect(noOrigin.json().error.code).toBe('cross_origin_refused');
    expect(noOrigin.json().error.message).toMatch(/Origin/);
    // Another page on this machine shares the cookie (cookies ignore ports) but not the origin.
    const otherPort = await call(base, 'POST', '/api/keys', { ...session, origin: 'http://127.0.0.1:5173' }, body);
    expect(otherPort.status).toBe(403);
    expect(otherPort.json().error.code).toBe('cross_origin_refused');
    const foreign = await call(base, 'POST', '/api/keys', { ...session, origin: 'https://attacker.example' }, body);
    expect(foreign.status).toBe(403);
    for (const method of ['PATCH', 'DELETE', 'PUT']) {
      expect((await call(base, method, '/api/providers/openai/secret', session, { secret: 'sk-x' })).status).toBe(403);
    }
    expect(pb.patchbay.keys.list()).toHaveLength(before);

    const ownPage = await call(base, 'POST', '/api/keys', { ...session, ...own }, body);
    expect(ownPage.status, ownPage.text).toBe(200);
    expect(ownPage.json().secret).toMatch(/^pb-/);
    const byToken = await call(base, 'POST', '/api/keys', { authorization: `Bearer ${pb.patchbay.adminToken}` }, { name: 'from-a-script' });
    expect(byToken.status, byToken.text).toBe(200);
    expect(pb.patchbay.keys.list()).toHaveLength(before + 2);
  });

  it('keeps the Host check for cookie requests', async () => {
    const { session } = await signIn(codeOf(pb.patchbay.createSignInUrl()));
    const rebound = await call(base, 'GET', '/api/keys', { ...session, host: `attacker.example:${pb.patchbay.port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.json().error.code).toBe('invalid_host');
  });

  it('never lets the cookie stand in for a /v1 key', async () => {
    const { session } = await signIn(codeOf(pb.patchbay.createSignInUrl()));
    const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: 'not-a-patchbay-key', maxRetries: 0, defaultHeaders: session });
    await expect(client.models.list()).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
    const bare = await call(base, 'GET', '/v1/models', { ...session, ...own });
    expect(bare.status).toBe(401);
  });

  it('signs out: the cookie is cleared and the session forgotten', async () => {
    const { session } = await signIn(codeOf(pb.patchbay.createSignInUrl()));
    const out = await call(base, 'DELETE', '/api/session', { ...session, ...own });
    expect(out.status).toBe(204);
    expect(out.headers['set-cookie']).toEqual(['patchbay_session=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0']);
    expect((await call(base, 'GET', '/api/session', session)).status).toBe(401);
    expect((await call(base, 'GET', '/api/keys', session)).status).toBe(401);
  });

  it('ends a session after 12 hours unused', async () => {
    const { session } = await signIn(codeOf(pb.patchbay.createSignInUrl()));
    clock.t += 11 * 3_600_000;
    expect((await call(base, 'GET', '/api/session', session)).status).toBe(200);
    clock.t += 12 * 3_600_000;
    expect((await call(base, 'GET', '/api/session', session)).status).toBe(401);
  });

  it('slows down only the connection that guesses: after 20 wrong codes it gets 429 and is closed, while a valid code signs in from anywhere', async () => {
    const good = codeOf(pb.patchbay.createSignInUrl());
    // The guessing process: one kept-alive connection, as a loop in a script holds it.
    const guesser = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    const guess = (code: string) => callWith(guesser, base, 'POST', '/api/session', own, { code }, (socket) => sockets.add(socket));
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await guess(`guess${i}AAAAAAAAAAAAAAAA`)).status);
      expect(statuses).toEqual(Array(20).fill(401));
      expect(sockets.size).toBe(1);
      const throttled = await guess('guess20AAAAAAAAAAAAAAAA');
      expect(throttled.status).toBe(429);
      expect(throttled.headers['retry-after']).toBe('60');
      expect(throttled.headers.connection).toBe('close');
      expect(throttled.json().error.message).toMatch(/this connection/);

      // The user's browser, on its own connection, is not kept out: the valid unused code works at once.
      const { session } = await signIn(good);
      expect((await call(base, 'GET', '/api/session', session)).status).toBe(200);
      // Nor is a valid code ever refused on the throttled source itself (it reconnects after the close).
      const another = await guess(codeOf(pb.patchbay.createSignInUrl()));
      expect(another.status, another.text).toBe(200);
      // A wrong code is still just wrong for everyone else.
      expect((await call(base, 'POST', '/api/session', own, { code: 'typoAAAAAAAAAAAAAAAAAAA' })).status).toBe(401);
    } finally {
      guesser.destroy();
    }
  });

  it('signs everyone out when Patchbay restarts (sessions live in memory only)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-restart-'));
    try {
      const first = await startPatchbay({ dataDir });
      const answer = await call(first.patchbay.url, 'POST', '/api/session', { origin: first.patchbay.url }, { code: codeOf(first.patchbay.createSignInUrl()) });
      const session = { cookie: String(answer.headers['set-cookie']).split(';')[0], 'x-patchbay-session': answer.json().token };
      expect((await call(first.patchbay.url, 'GET', '/api/session', session)).status).toBe(200);
      await first.stop();
      const second = await startPatchbay({ dataDir });
      expect((await call(second.patchbay.url, 'GET', '/api/session', session)).status).toBe(401);
      await second.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'patchbay.js');

/** Runs the patchbay CLI as a user would; resolves with its exit code and output. */
function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the sign-in link from the command line', () => {
  let home: string;
  let fakeBin: string;
  let opened: string;
  let server: ChildProcess | null = null;
  let serverOut = '';
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'patchbay-ui-cli-'));
    // A stand-in for the desktop's xdg-open that notes which URL it was asked to open.
    fakeBin = join(home, 'bin');
    opened = join(home, 'opened-url');
    mkdirSync(fakeBin);
    writeFileSync(join(fakeBin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
    chmodSync(join(fakeBin, 'xdg-open'), 0o755);
    env = { PATH: `${fakeBin}:${process.env.PATH}`, PATCHBAY_HOME: join(home, 'data') };
    server = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env });
    server.stderr!.resume();
    await new Promise<void>((resolve, reject) => {
      server!.stdout!.on('data', (d) => {
        serverOut += d;
        if (/^Sign in: .*$/m.test(serverOut)) resolve();
      });
      server!.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
  });
  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(home, { recursive: true, force: true });
  });

  const signInWith = async (link: string) => {
    const origin = new URL(link).origin;
    return call(origin, 'POST', '/api/session', { origin }, { code: codeOf(link) });
  };

  it('patchbay serve prints the dashboard address and a working one-time sign-in link after the listening line', async () => {
    const lines = serverOut.trim().split('\n');
    const listening = /^Patchbay listening on (http:\/\/127\.0\.0\.1:\d+)\/v1$/.exec(lines[0]);
    expect(listening, serverOut).not.toBeNull();
    const origin = listening![1];
    // Which providers have a key comes between; the dashboard and its link follow, in that order.
    const dashboard = lines.indexOf(`Dashboard: ${origin}/ui/`);
    expect(dashboard, serverOut).toBeGreaterThan(0);
    expect(lines[dashboard + 1]).toMatch(new RegExp(`^Sign in: ${origin}/ui/#code=[A-Za-z0-9_-]{22,}$`));
    const link = lines[dashboard + 1].slice('Sign in: '.length);
    expect((await signInWith(link)).status).toBe(200);
    expect((await signInWith(link)).status).toBe(401);
    expect(serverOut).not.toContain(readFileSync(join(home, 'data', 'admin-token'), 'utf8').trim());
  });

  it('patchbay ui --no-open prints a fresh working link and opens nothing', async () => {
    const result = await cli(['ui', '--no-open'], { ...env, DISPLAY: ':0' });
    expect(result.code, result.stderr).toBe(0);
    const link = /^Sign in: (http:\/\/127\.0\.0\.1:\d+\/ui\/#code=\S+)$/m.exec(result.stdout)?.[1];
    expect(link, result.stdout).toBeDefined();
    const answer = await signInWith(link!);
    expect(answer.status).toBe(200);
    const session = { cookie: String(answer.headers['set-cookie']).split(';')[0], 'x-patchbay-session': answer.json().token };
    expect((await call(new URL(link!).origin, 'GET', '/api/keys', session)).status).toBe(200);
    expect(existsSync(opened)).toBe(false);
  });

  it('patchbay ui opens the link in the browser when a display is available, and only then', async () => {
    const headless = await cli(['ui'], env);
    expect(headless.code).toBe(0);
    expect(headless.stderr).toMatch(/open the link above/);
    expect(existsSync(opened)).toBe(false);

    const desktop = await cli(['ui'], { ...env, DISPLAY: ':0' });
    expect(desktop.code, desktop.stderr).toBe(0);
    const link = /^Sign in: (\S+)$/m.exec(desktop.stdout)![1];
    // The opener runs detached; wait (bounded) for it to have been handed the link.
    for (let i = 0; i < 100 && !existsSync(opened); i++) await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(opened, 'utf8')).toBe(link);
    expect((await signInWith(link)).status).toBe(200);
  });

  it('patchbay ui without a running server says to start it, in one line, and exits 1', async () => {
    const idle = { ...env, PATCHBAY_HOME: join(home, 'no-server') };
    const result = await cli(['ui', '--no-open'], idle);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/not running.*npm start/);
    // A server.json left behind by a server that died is the same situation.
    mkdirSync(idle.PATCHBAY_HOME!, { recursive: true });
    writeFileSync(join(idle.PATCHBAY_HOME!, 'server.json'), JSON.stringify({ url: 'http://127.0.0.1:9', pid: 1 }));
    const stale = await cli(['ui', '--no-open'], idle);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/not running.*npm start/);
  });
});
