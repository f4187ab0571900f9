import { Entry } from '@napi-rs/keyring';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runProvidersCommand } from '../../core/cli/providers-command.ts';
import { runUsageCommand } from '../../core/cli/usage-command.ts';
import { KeychainSecretStore } from '../../core/secrets/keychain-secret-store.ts';
import { AnthropicEmulator } from '../emulators/anthropic-emulator.ts';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { TogetherEmulator } from '../emulators/together-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';

// Two keys of one Groq account (say two projects), and a third the account does not know.
const FIRST = 'gsk-test-first-key-0123456789abcdef';
const SECOND = 'gsk-test-second-key-fedcba9876543210';
const UNKNOWN = 'gsk-test-revoked-key-000000000000000';
const TOGETHER = 'tgp-test-together-key-0123456789';

/** What each request the Groq emulator received carried as Authorization, in order. */
const keysSeen = (emulator: GroqEmulator) => emulator.requests.map((r) => r.headers.authorization);

describe('several keys per provider: a key that is rate limited, out of quota or rejected hands the request to the next key of the same provider', () => {
  const groq = new GroqEmulator({ apiKey: FIRST, moreApiKeys: [SECOND] });
  const together = new TogetherEmulator({ apiKey: TOGETHER });
  const keychainService = `patchbay-test-keys-${process.pid}`;
  const urls = { groq: '', together: '' };
  let pb: TestPatchbay | undefined;

  const start = async (groqConfig: Record<string, unknown> = {}) => {
    pb = await startPatchbay({
      config: { providers: { groq: { baseUrl: `${urls.groq}/openai/v1`, ...groqConfig }, together: { baseUrl: `${urls.together}/v1` } } },
      env: { TOGETHER_API_KEY: TOGETHER },
      keychainService,
    });
    return pb;
  };
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${pb!.patchbay.url}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${pb!.patchbay.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, any> };
  };
  // llama-3.3-70b is served by Groq and Together; the cost strategy tries Groq (cheaper) first, so leaving Groq shows as Together answering.
  const chat = async (stream = false) => {
    const response = await fetch(`${pb!.patchbay.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pb!.key}`, 'content-type': 'application/json', 'x-patchbay-strategy': 'cost' },
      body: JSON.stringify({ model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'hello' }], stream }),
    });
    return { status: response.status, provider: response.headers.get('x-patchbay-provider'), text: await response.text() };
  };
  const groqKeys = async () => (await api('GET', '/providers')).json.data.find((p: { name: string }) => p.name === 'groq').keys as Record<string, any>[];

  beforeAll(async () => {
    if (!new KeychainSecretStore({}, keychainService).available) throw new Error('These tests need a Secret Service (gnome-keyring in a D-Bus session).');
    urls.groq = await groq.start();
    urls.together = await together.start();
  });
  afterEach(async () => {
    if (pb) {
      await api('DELETE', '/providers/groq/secret').catch(() => undefined);
      await api('DELETE', '/providers/groq/secrets/work').catch(() => undefined);
    }
    await pb?.stop();
    pb = undefined;
    for (const emulator of [groq, together]) {
      emulator.requests.length = 0;
      emulator.clearFaults();
    }
  });
  afterAll(async () => {
    await Promise.all([groq.close(), together.close()]);
  });

  it('a 429 on the first of two Groq keys is served by the second without leaving Groq; the first rests', async () => {
    await start();
    await api('PUT', '/providers/groq/secret', { secret: FIRST });
    await api('PUT', '/providers/groq/secrets/work', { secret: SECOND });
    groq.inject({ status: 429, apiKey: FIRST, retryAfterSeconds: 60 });

    const answer = await chat();
    expect(answer.status).toBe(200);
    expect(answer.provider).toBe('groq');
    expect(keysSeen(groq)).toEqual([`Bearer ${FIRST}`, `Bearer ${SECOND}`]);
    expect(together.requests).toEqual([]);

    // The first key rests for its retry window: the next request goes straight to the second.
    expect((await chat()).provider).toBe('groq');
    expect(keysSeen(groq)).toEqual([`Bearer ${FIRST}`, `Bearer ${SECOND}`, `Bearer ${SECOND}`]);

    const [first, work] = await groqKeys();
    expect(first).toMatchObject({ label: 'default', source: 'keychain', withheld: false, last_error: { status: 429 } });
    expect(Date.parse(first.resting_until)).toBeGreaterThan(Date.now() + 30_000);
    expect(first.rest_reason).toContain('429');
    expect(work).toMatchObject({ label: 'work', resting_until: null, last_error: null });
    expect(work.last_used_at).not.toBeNull();
    expect([first.requests_since_start, work.requests_since_start]).toEqual([0, 2]);

    // The usage rows say which key served, by label; the provider was tried once (no fallback).
    const rows = usageRows(pb!.patchbay);
    expect(rows.map((r) => [r.provider, r.provider_key, r.status])).toEqual([['groq', 'work', 200], ['groq', 'work', 200]]);
    expect((rows[0].attempts as unknown[]).length).toBe(1);
    // The request log (the dashboard's) and the export carry it too.
    const logged = (await api('GET', '/usage/log')).json.data as { provider_key: string }[];
    expect(logged.map((r) => r.provider_key)).toEqual(['work', 'work']);
    const exported = (await api('GET', '/usage/requests')).json.rows as { provider_key: string }[];
    expect(exported.map((r) => r.provider_key)).toEqual(['work', 'work']);
  });

  it('a stream whose first key is rate limited is served by the second key before its first byte', async () => {
    await start();
    await api('PUT', '/providers/groq/secret', { secret: FIRST });
    await api('PUT', '/providers/groq/secrets/work', { secret: SECOND });
    groq.inject({ status: 429, apiKey: FIRST, retryAfterSeconds: 60 });
    const answer = await chat(true);
    expect(answer.status).toBe(200);
    expect(answer.provider).toBe('groq');
    expect(answer.text).toContain('"content":"You"');
    expect(answer.text).toContain('[DONE]');
    expect(keysSeen(groq)).toEqual([`Bearer ${FIRST}`, `Bearer ${SECOND}`]);
  });

  it('a 401 on one key moves to the next key; the rejected key rests until it is set again', async () => {
    await start();
    await api('PUT', '/providers/groq/secret', { secret: UNKNOWN });
    await api('PUT', '/providers/groq/secrets/work', { secret: SECOND });

    expect(await chat()).toMatchObject({ status: 200, provider: 'groq' });
    expect(await chat()).toMatchObject({ status: 200, provider: 'groq' });
    // The emulator's own 401 for a key it does not know: tried once, then left alone.
    expect(keysSeen(groq)).toEqual([`Bearer ${UNKNOWN}`, `Bearer ${SECOND}`, `Bearer ${SECOND}`]);
    const [rejected] = await groqKeys();
    expect(rejected).toMatchObject({ label: 'default', resting_until: 'until the key is set again', last_error: { status: 401 } });
    expect(rejected.rest_reason).toContain('401');

    // Setting the key again is what ends its rest: the default key is first in order again.
    await api('PUT', '/providers/groq/secret', { secret: FIRST });
    expect((await groqKeys())[0]).toMatchObject({ resting_until: null, last_error: null });
    expect((await chat()).provider).toBe('groq');
    expect(keysSeen(groq).at(-1)).toBe(`Bearer ${FIRST}`);
    expect(together.requests).toEqual([]);
  });

  it('when both Groq keys are rate limited the request falls back to another provider, as with one key', async () => {
    await start();
    await api('PUT', '/providers/groq/secret', { secret: FIRST });
    await api('PUT', '/providers/groq/secrets/work', { secret: SECOND });
    groq.inject({ status: 429, apiKey: FIRST, retryAfterSeconds: 30 });
    groq.inject({ status: 429, apiKey: SECOND, retryAfterSeconds: 30 });

    const answer = await chat();
    expect(answer).toMatchObject({ status: 200, provider: 'together' });
    expect(keysSeen(groq)).toEqual([`Bearer ${FIRST}`, `Bearer ${SECOND}`]);
    expect(together.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${TOGETHER}`]);
    const [row] = usageRows(pb!.patchbay);
    expect(row).toMatchObject({ provider: 'together', provider_key: 'default' });
    expect((row.attempts as { provider: string; status: number }[]).map((a) => [a.provider, a.status])).toEqual([['groq', 429], ['together', 200]]);
    // Both keys rest, so Groq is skipped as rate limited until the first of them wakes.
    expect((await chat()).provider).toBe('together');
    expect(groq.requests).toHaveLength(2);
  });

  it('spread mode (providers.groq.keyOrder) alternates the keys request by request', async () => {
    await start({ keyOrder: 'spread' });
    await api('PUT', '/providers/groq/secret', { secret: FIRST });
    await api('PUT', '/providers/groq/secrets/work', { secret: SECOND });
    for (let i = 0; i < 4; i++) expect((await chat()).provider).toBe('groq');
    const seen = keysSeen(groq);
    expect(new Set(seen)).toEqual(new Set([`Bearer ${FIRST}`, `Bearer ${SECOND}`]));
    for (let i = 1; i < seen.length; i++) expect(seen[i]).not.toBe(seen[i - 1]);
    expect((await api('GET', '/providers')).json.data.find((p: { name: string }) => p.name === 'groq').key_order).toBe('spread');

    // Back to ordered through the API: the default key takes every request again.
    expect((await api('PATCH', '/providers/groq', { keyOrder: 'ordered' })).status).toBe(200);
    await chat();
    await chat();
    expect(keysSeen(groq).slice(-2)).toEqual([`Bearer ${FIRST}`, `Bearer ${FIRST}`]);
  });

  it('a keyOrder that is not "ordered" or "spread" is refused naming the field, in the config file and through the API', async () => {
    await expect(start({ keyOrder: 'random' })).rejects.toThrow(/providers\.groq\.keyOrder/);
    await start();
    const refused = await api('PATCH', '/providers/groq', { keyOrder: 'random' });
    expect(refused.status).toBe(400);
    expect(refused.json.error.param).toBe('keyOrder');
    const badLabel = await api('PUT', '/providers/groq/secrets/Not%20A%20Label', { secret: SECOND });
    expect(badLabel.status).toBe(400);
    expect(badLabel.json.error.param).toBe('label');
    const missing = await api('DELETE', '/providers/groq/secrets/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.json.error.param).toBe('label');
  });

  it('a single key stored by an earlier Patchbay keeps working as the "default" key; the CLI adds, lists (labels only) and deletes labelled keys', async () => {
    // The entry exactly as a Patchbay before labels wrote it: account = provider name, {"secret","origin"}.
    new Entry(keychainService, 'groq').setPassword(JSON.stringify({ secret: FIRST, origin: `http://127.0.0.1:${new URL(urls.groq).port}` }));
    await start();
    expect(await chat()).toMatchObject({ status: 200, provider: 'groq' });
    expect(keysSeen(groq)).toEqual([`Bearer ${FIRST}`]);

    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t), env: { PATCHBAY_HOME: pb!.dataDir }, stdin: async () => `${SECOND}\n` };
    expect(await runProvidersCommand(['set-key', 'groq', '--label', 'work'], io)).toBe(0);
    expect(out.join('')).toContain('Stored the groq key "work" in the OS keychain.');
    out.length = 0;
    await runProvidersCommand(['list'], io);
    expect(out.join('')).toMatch(/groq\s+openai\s+yes\s+keychain\s+default, work\s+http/);

    groq.inject({ status: 429, apiKey: FIRST, retryAfterSeconds: 60 });
    expect((await chat()).provider).toBe('groq');
    out.length = 0;
    await runProvidersCommand(['list'], io);
    expect(out.join('')).toMatch(/groq key "default": resting until \S+, rate limited or out of quota \(429\)/);
    out.length = 0;
    await runUsageCommand(['--by', 'provider-key'], io);
    expect(out.join('')).toMatch(/groq \(default\)\s+1\s/);
    expect(out.join('')).toMatch(/groq \(work\)\s+1\s/);
    const printed = out.join('');

    out.length = 0;
    expect(await runProvidersCommand(['delete-key', 'groq', '--label', 'work'], io)).toBe(0);
    expect((await groqKeys()).map((k) => k.label)).toEqual(['default']);
    // No key ever appears in what the CLI printed or the API answered.
    const everything = printed + out.join('') + JSON.stringify((await api('GET', '/providers')).json);
    for (const secret of [FIRST, SECOND]) expect(everything).not.toContain(secret);
  });
});

describe('the Anthropic pass-through (/v1/messages, what Claude Code sends) tries the keys the same way', () => {
  const FIRST_ANT = 'sk-ant-test-first-0123456789abcdef';
  const SECOND_ANT = 'sk-ant-test-second-fedcba987654321';
  const anthropic = new AnthropicEmulator({ apiKey: FIRST_ANT, moreApiKeys: [SECOND_ANT] });
  let pb: TestPatchbay | undefined;
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${pb!.patchbay.url}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${pb!.patchbay.adminToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const messages = (stream: boolean) =>
    fetch(`${pb!.patchbay.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': pb!.key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-haiku-4-5', max_tokens: 50, messages: [{ role: 'user', content: 'hello' }], stream }),
    });

  beforeAll(async () => {
    const url = await anthropic.start();
    pb = await startPatchbay({ config: { providers: { anthropic: { baseUrl: `${url}/v1` } } } });
    await api('PUT', '/providers/anthropic/secret', { secret: FIRST_ANT });
    await api('PUT', '/providers/anthropic/secrets/second', { secret: SECOND_ANT });
  });
  afterAll(async () => {
    await api('DELETE', '/providers/anthropic/secret');
    await api('DELETE', '/providers/anthropic/secrets/second');
    await pb?.stop();
    await anthropic.close();
  });

  it('a billing error (402) on the first key, JSON and streamed, is answered through the second key; the first rests', async () => {
    anthropic.inject({ status: 402, apiKey: FIRST_ANT });
    const json = await messages(false);
    expect(json.status).toBe(200);
    expect(((await json.json()) as { type: string }).type).toBe('message');
    const stream = await messages(true);
    expect(stream.status).toBe(200);
    expect(await stream.text()).toContain('event: message_stop');
    expect(anthropic.requests.map((r) => r.headers['x-api-key'])).toEqual([FIRST_ANT, SECOND_ANT, SECOND_ANT]);
    const keys = ((await (await api('GET', '/providers')).json()) as { data: { name: string; keys: { label: string; rest_reason: string | null }[] }[] }).data.find((p) => p.name === 'anthropic')!.keys;
    expect(keys.map((k) => [k.label, k.rest_reason])).toEqual([['default', 'out of quota (402)'], ['second', null]]);
    expect(usageRows(pb!.patchbay).map((r) => r.provider_key)).toEqual(['second', 'second']);
  });
});
