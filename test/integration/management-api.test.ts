import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { KeychainSecretStore } from '../../core/secrets/keychain-secret-store.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';

const GOOD = 'sk-test-keychain-good-0123456789abcdef';
const WRONG = 'sk-test-keychain-wrong-fedcba9876543210';

/** Every byte under a folder, for searching secrets in. */
function readTree(dir: string): string {
  let out = '';
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    out += statSync(path).isDirectory() ? readTree(path) : readFileSync(path).toString('latin1');
  }
  return out;
}

describe('the management API, provider secrets in the OS keychain, and usage queries', () => {
  const emulator = new OpenAiEmulator({ apiKey: GOOD });
  const keychainService = `patchbay-test-mgmt-${process.pid}`;
  const seen: string[] = [];
  let pb: TestPatchbay;
  let upstream: string;

  /** Calls /api as the dashboard would, and keeps every answer for the leak check. */
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${pb.patchbay.url}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${pb.patchbay.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    seen.push(text, JSON.stringify([...response.headers]));
    return { status: response.status, text, json: () => JSON.parse(text) };
  };
  const chat = async () => {
    const result = await pb.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }).catch((e: unknown) => e);
    seen.push(JSON.stringify(result), String((result as Error).message ?? ''));
    return result;
  };

  beforeAll(async () => {
    if (!new KeychainSecretStore({}, keychainService).available) {
      throw new Error('These tests need a Secret Service (gnome-keyring in a D-Bus session): run them with "npm test", which starts one.');
    }
    upstream = await emulator.start();
    pb = await startPatchbay({ config: { providers: { openai: { baseUrl: `${upstream}/v1` } } }, env: {}, keychainService });
  });
  afterAll(async () => {
    await api('DELETE', '/providers/openai/secret').catch(() => undefined);
    await pb?.stop();
    await emulator.close();
  });

  it('requires the admin token: no token and /v1 keys get 401', async () => {
    const none = await api('GET', '/keys', undefined, { authorization: '' });
    expect(none.status).toBe(401);
    expect(none.json().error.code).toBe('invalid_admin_token');
    expect((await api('GET', '/keys', undefined, { authorization: `Bearer ${pb.key}` })).status).toBe(401);
    expect((await api('GET', '/keys')).status).toBe(200);
  });

  it('refuses cross-origin requests and foreign Host headers, even with the token', async () => {
    const cross = await api('GET', '/keys', undefined, { origin: 'http://localhost:5173' });
    expect(cross.status).toBe(403);
    expect(cross.json().error.code).toBe('cross_origin_refused');
    expect((await api('GET', '/keys', undefined, { origin: pb.patchbay.url })).status).toBe(200);
    // fetch cannot forge Host; the shared guard is exercised with raw HTTP in the end-to-end suite, and here through the router.
    const rebinding = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(`${pb.patchbay.url}/api/keys`, { headers: { host: 'attacker.example', authorization: `Bearer ${pb.patchbay.adminToken}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end();
    });
    expect(rebinding).toBe(403);
  });

  it('sets, tests, replaces and deletes a provider secret in the keychain; the secret is never read back', async () => {
    const missing = await chat();
    expect(missing).toMatchObject({ status: 503, code: 'no_eligible_provider' });
    expect((missing as Error).message).toContain('patchbay providers set-key openai');

    const set = await api('PUT', '/providers/openai/secret', { secret: GOOD });
    expect(set.status).toBe(200);
    expect(set.json()).toMatchObject({ name: 'openai', key_source: 'keychain' });
    expect((await chat()) as { choices: unknown[] }).toHaveProperty('choices');
    expect((await api('POST', '/providers/openai/test')).json()).toMatchObject({ ok: true });
    const providers = await api('GET', '/providers');
    expect(providers.json().data.find((p: { name: string }) => p.name === 'openai')).toMatchObject({ key_source: 'keychain', enabled: true });

    expect((await api('PUT', '/providers/openai/secret', { secret: WRONG })).status).toBe(200);
    const test = (await api('POST', '/providers/openai/test')).json();
    expect(test).toMatchObject({ ok: false, status: 401 });
    expect(test.message).toContain('rejected the key');
    const rejected = await chat();
    // The provider refused Patchbay's provider key: not the caller's fault, so not a 401 to the caller.
    expect(rejected).toMatchObject({ status: 502 });

    // An upstream that quotes the key back in an error has it removed.
    await api('PUT', '/providers/openai/secret', { secret: GOOD });
    emulator.inject({ path: '/chat/completions', status: 500, message: `upstream trouble with key ${GOOD}` });
    const echoed = await chat();
    expect((echoed as Error).message).toContain('[redacted]');

    // Stored in the real keychain: a new Patchbay on the same service finds it.
    const second = await startPatchbay({ config: { providers: { openai: { baseUrl: `${upstream}/v1` } } }, env: {}, keychainService });
    const viaSecond = await second.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(viaSecond.choices[0].message.content).toBe('You said: hi');
    await second.stop();

    const bad = await api('PUT', '/providers/openai/secret', { secret: 'has a space in it' });
    expect(bad.status).toBe(400);
    expect(bad.json().error.param).toBe('secret');
    expect((await api('PUT', '/providers/nobody/secret', { secret: GOOD })).status).toBe(404);

    expect((await api('DELETE', '/providers/openai/secret')).json()).toMatchObject({ key_source: 'none' });
    expect(await chat()).toMatchObject({ status: 503 });
  });

  it('an environment variable overrides the keychain for headless use', async () => {
    await api('PUT', '/providers/openai/secret', { secret: WRONG });
    const headless = await startPatchbay({ config: { providers: { openai: { baseUrl: `${upstream}/v1` } } }, env: { OPENAI_API_KEY: GOOD }, keychainService });
    const answer = await headless.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'env' }] });
    expect(answer.choices[0].message.content).toBe('You said: env');
    expect(headless.patchbay.management.listProviders().find((p) => p.name === 'openai')!.key_source).toBe('env');
    await headless.stop();
    await api('DELETE', '/providers/openai/secret');
  });

  it('manages keys over HTTP with validation errors naming the field', async () => {
    const created = await api('POST', '/keys', { name: 'dashboard', rpm_limit: 5, expires_at: '2099-01-01' });
    expect(created.status).toBe(200);
    const { key, secret } = created.json();
    expect(secret).toMatch(/^pb-/);
    expect(key).toMatchObject({ name: 'dashboard', rpm_limit: 5, status: 'active', expires_at: '2099-01-01T00:00:00.000Z' });
    const list = await api('GET', '/keys');
    expect(list.text).not.toContain(secret);
    const updated = await api('PATCH', `/keys/${key.id}`, { rpm_limit: null, monthly_token_cap: 1000 });
    expect(updated.json()).toMatchObject({ rpm_limit: null, monthly_token_cap: 1000 });
    const invalid = await api('PATCH', `/keys/${key.id}`, { rpm_limit: -3 });
    expect(invalid.status).toBe(400);
    expect(invalid.json().error.param).toBe('rpm_limit');
    expect((await api('POST', '/keys', { rpm_limit: 3 })).json().error.param).toBe('name');
    expect((await api('POST', `/keys/${key.id}/revoke`)).json()).toMatchObject({ status: 'revoked' });
    expect((await api('POST', `/keys/${key.id}/rotate`)).status).toBe(409);
    expect((await api('POST', '/keys/key_nope/revoke')).status).toBe(404);
  });

  it('changes the routing strategy in the config file and uses it at once', async () => {
    const invalid = await api('PUT', '/routing', { strategy: 'fastest' });
    expect(invalid.status).toBe(400);
    expect(invalid.json().error.param).toBe('strategy');
    expect((await api('PUT', '/routing', { strategy: 'cost' })).json()).toMatchObject({ strategy: 'cost' });
    expect(JSON.parse(readFileSync(join(pb.dataDir, 'config.json'), 'utf8')).routing.strategy).toBe('cost');
    await api('PUT', '/providers/openai/secret', { secret: GOOD });
    const { response } = await pb.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }).withResponse();
    expect(response.headers.get('x-patchbay-strategy')).toBe('cost');
    await api('PUT', '/routing', { strategy: 'balanced' });
  });

  it('answers usage by key, provider, model and day, and exports CSV and JSON', async () => {
    await pb.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'count me' }] });
    const month = new Date().toISOString().slice(0, 7);
    const byModel = (await api('GET', `/usage?month=${month}&group_by=model`)).json();
    expect(byModel.rows.map((r: { group: string }) => r.group)).toEqual(expect.arrayContaining(['openai/gpt-4o-mini']));
    const byKey = (await api('GET', '/usage?group_by=key')).json();
    expect(byKey.rows.find((r: { group: string }) => r.group === pb.patchbay.keys.list()[0].id).requests).toBeGreaterThan(0);
    const byDay = (await api('GET', '/usage?group_by=day')).json();
    expect(byDay.rows[0].group).toBe(new Date().toISOString().slice(0, 10));
    expect((await api('GET', '/usage?group_by=week')).status).toBe(400);

    const rows = usageRows(pb.patchbay);
    const csv = (await api('GET', '/usage/export?format=csv')).text.trim().split('\r\n');
    expect(csv[0].split(',')).toEqual(expect.arrayContaining(['request_id', 'provider', 'model', 'prompt_tokens', 'cost_usd']));
    expect(csv).toHaveLength(rows.length + 1);
    const json = (await api('GET', '/usage/export?format=json')).json();
    expect(json).toHaveLength(rows.length);
    expect(json.at(-1)).toMatchObject({ requested_model: 'gpt-4o-mini', status: 200 });
  });

  it('adds the configured routing fee to the cost of successful requests only', async () => {
    const fee = 0.002;
    const billed = await startPatchbay({ config: { providers: { openai: { baseUrl: `${upstream}/v1` } }, usage: { routingFeeUsd: fee } }, env: { OPENAI_API_KEY: GOOD }, keychainService });
    await billed.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'bill me' }] });
    await billed.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [] }).catch(() => undefined);
    const [ok, failed] = usageRows(billed.patchbay);
    const tokens = ((ok.prompt_tokens as number) * 0.15 + (ok.completion_tokens as number) * 0.6) / 1e6;
    expect(ok.cost_usd).toBeCloseTo(tokens + fee, 12);
    expect(ok).toMatchObject({ input_price: 0.15, output_price: 0.6 });
    expect(failed).toMatchObject({ status: 400, cost_usd: 0 });
    await billed.stop();
  });

  it('sets a provider key from the CLI through stdin, into the keychain, without echoing it', async () => {
    const bin = join(import.meta.dirname, '..', '..', 'bin', 'patchbay.js');
    const env = { PATH: process.env.PATH, DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS, PATCHBAY_HOME: pb.dataDir, PATCHBAY_KEYCHAIN_SERVICE: keychainService };
    // Asynchronous on purpose: the server answering the CLI runs in this very process.
    const run = (args: string[], input = '') =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [bin, ...args], { env });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
        child.stdin.end(input);
      });
    // The server is running, so the CLI goes through its management API.
    const set = await run(['providers', 'set-key', 'openai'], `${GOOD}\n`);
    expect(set.status).toBe(0);
    seen.push(set.stdout, set.stderr);
    expect(set.stdout).toContain('Stored the openai key in the OS keychain');
    expect(pb.patchbay.management.listProviders().find((p) => p.name === 'openai')!.key_source).toBe('keychain');
    const test = await run(['providers', 'test', 'openai']);
    seen.push(test.stdout, test.stderr);
    expect(test).toMatchObject({ status: 0, stdout: expect.stringContaining('OK: openai accepted the key') });
    const list = await run(['providers', 'list']);
    seen.push(list.stdout);
    expect(list.stdout).toMatch(/openai\s+openai\s+yes\s+keychain/);
    expect(await run(['providers', 'set-key', 'openai'], 'short\n')).toMatchObject({ status: 2, stderr: expect.stringContaining("Invalid 'secret'") });
    const removed = await run(['providers', 'delete-key', 'openai']);
    expect(removed.status).toBe(0);
    expect(pb.patchbay.management.listProviders().find((p) => p.name === 'openai')!.key_source).toBe('none');
  });

  it('keeps no content unless the content log is turned on', async () => {
    expect(pb.patchbay.db.prepare('SELECT count(*) FROM content_log').pluck().get()).toBe(0);
    const logging = await startPatchbay({ config: { providers: { openai: { baseUrl: `${upstream}/v1` } }, usage: { contentLog: true } }, env: { OPENAI_API_KEY: GOOD }, keychainService });
    await logging.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'debug me please' }] });
    logging.patchbay.usage.flush();
    const logged = logging.patchbay.db.prepare('SELECT request, response FROM content_log').get() as { request: string; response: string };
    expect(logged.request).toContain('debug me please');
    expect(logged.response).toContain('You said: debug me please');
    await logging.stop();
  });

  it('never writes a provider secret to the data dir, the logs or any answer', () => {
    pb.patchbay.usage.flush();
    const everything = readTree(pb.dataDir) + seen.join('\n') + pb.logs.join('\n');
    for (const secret of [GOOD, WRONG]) {
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain(secret.slice(8));
    }
  });

  it('says in one line when no keychain is available, and works from environment variables', async () => {
    const home = `${pb.dataDir}-nokeychain`;
    onTestFinished(() => rmSync(home, { recursive: true, force: true }));
    const child = spawn(process.execPath, [join(import.meta.dirname, '..', '..', 'bin', 'patchbay.js'), 'serve', '--port', '0'], {
      env: { PATH: process.env.PATH, PATCHBAY_HOME: home, OPENAI_API_KEY: GOOD, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/patchbay-bus' },
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    await new Promise<void>((resolve) => child.stdout.on('data', (d) => String(d).includes('listening') && resolve()));
    child.kill('SIGTERM');
    await new Promise((resolve) => child.on('exit', resolve));
    const lines = stderr.split('\n').filter((l) => l.includes('keychain'));
    expect(lines).toEqual(['No OS keychain is available here (no Secret Service is running), so provider keys come from environment variables only (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...).']);
  });
});
