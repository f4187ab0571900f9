import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runProvidersCommand } from '../../core/cli/providers-command.ts';
import { KeychainSecretStore } from '../../core/secrets/keychain-secret-store.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

const KEY = 'sk-test-origin-bound-0123456789abcdef';
const NEW_KEY = 'sk-test-origin-rebound-fedcba9876543210';
const WORK_KEY = 'sk-test-origin-work-key-5555555555555';

/** Every credential-shaped thing a request carried: Authorization, x-api-key, x-goog-api-key, a key= query parameter. */
function credentialsSeen(emulator: OpenAiEmulator): string[] {
  return emulator.requests.flatMap((r) => {
    const found = [r.headers.authorization, r.headers['x-api-key'], r.headers['x-goog-api-key']].filter((v): v is string => typeof v === 'string');
    const query = new URL(r.path, 'http://x').searchParams.get('key');
    return query ? [...found, query] : found;
  });
}

describe('a provider secret is sent only to the origin it was set for', () => {
  // Two upstreams on different ports: "home" is where the key was set, "elsewhere" is where the base URL is moved.
  const home = new OpenAiEmulator({ apiKey: KEY, moreApiKeys: [WORK_KEY] });
  const elsewhere = new OpenAiEmulator({ apiKey: NEW_KEY });
  const keychainService = `patchbay-test-origin-${process.pid}`;
  const urls = { home: '', elsewhere: '' };
  let pb: TestPatchbay | undefined;

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${pb!.patchbay.url}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${pb!.patchbay.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as Record<string, any> };
  };
  const chat = () => pb!.client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] });

  beforeAll(async () => {
    if (!new KeychainSecretStore({}, keychainService).available) throw new Error('These tests need a Secret Service (gnome-keyring in a D-Bus session).');
    urls.home = await home.start();
    urls.elsewhere = await elsewhere.start();
  });
  afterEach(async () => {
    if (pb) await api('DELETE', '/providers/openai/secret').catch(() => undefined);
    if (pb) await api('DELETE', '/providers/openai/secrets/work').catch(() => undefined);
    await pb?.stop();
    pb = undefined;
    home.requests.length = 0;
    elsewhere.requests.length = 0;
  });
  afterAll(async () => {
    await Promise.all([home.close(), elsewhere.close()]);
  });

  it('moving the base URL to another host withholds the keychain key everywhere (requests, test, PATCH, list, CLI) until it is set again', async () => {
    pb = await startPatchbay({ config: { providers: { openai: { baseUrl: `${urls.home}/v1` } } }, env: {}, keychainService });
    expect((await api('PUT', '/providers/openai/secret', { secret: KEY })).json.secret_withheld).toBe(false);
    expect((await chat()).choices[0].message.content).toBe('You said: hello');

    const moved = await api('PATCH', '/providers/openai', { baseUrl: `${urls.elsewhere}/v1` });
    const elsewhereOrigin = `http://127.0.0.1:${new URL(urls.elsewhere).port}`;
    expect(moved.status).toBe(200);
    expect(moved.json.secret_withheld).toBe(true);
    expect(moved.json.notice).toBe(`openai's base URL moved to ${elsewhereOrigin}; its key is withheld until you set it again (patchbay providers set-key openai).`);

    const test = await api('POST', '/providers/openai/test');
    expect(test.json.ok).toBe(false);
    expect(test.json.message).toContain(`moved to ${elsewhereOrigin}; its key is withheld`);

    const refused = await chat().catch((e: { status: number; error: { code: string; message: string } }) => e);
    expect((refused as { status: number }).status).toBe(503);
    expect((refused as { error: { message: string } }).error.message).toContain(`openai's base URL moved to ${elsewhereOrigin}; its key is withheld`);

    const listed = (await api('GET', '/providers')).json.data as { name: string; secret_withheld: boolean }[];
    expect(listed.find((p) => p.name === 'openai')!.secret_withheld).toBe(true);
    const out: string[] = [];
    await runProvidersCommand(['list'], { out: (t) => out.push(t), err: () => undefined, env: { PATCHBAY_HOME: pb.dataDir } });
    expect(out.join('')).toMatch(/openai\s+openai\s+yes\s+keychain, WITHHELD/);
    expect(out.join('')).toContain(`openai's base URL moved to ${elsewhereOrigin}`);

    // Nothing with the key (or any credential) ever reached the new host.
    expect(credentialsSeen(elsewhere)).toEqual([]);

    // Setting the key again binds it to the new origin: it works there.
    const reset = await api('PUT', '/providers/openai/secret', { secret: NEW_KEY });
    expect(reset.json.secret_withheld).toBe(false);
    expect((await api('POST', '/providers/openai/test')).json.ok).toBe(true);
    expect((await chat()).choices[0].message.content).toBe('You said: hello');
    expect(credentialsSeen(elsewhere).every((c) => c === `Bearer ${NEW_KEY}`)).toBe(true);
    expect(credentialsSeen(elsewhere).length).toBeGreaterThan(0);
  });

  it('a change of path on the same origin keeps the key; moving back to the origin it was set for restores it', async () => {
    pb = await startPatchbay({ config: { providers: { openai: { baseUrl: `${urls.home}/v1` } } }, env: {}, keychainService });
    await api('PUT', '/providers/openai/secret', { secret: KEY });
    expect((await api('PATCH', '/providers/openai', { baseUrl: `${urls.home}/other/v1` })).json.secret_withheld).toBe(false);
    expect((await api('PATCH', '/providers/openai', { baseUrl: `${urls.elsewhere}/v1` })).json.secret_withheld).toBe(true);
    expect((await api('PATCH', '/providers/openai', { baseUrl: `${urls.home}/v1` })).json.secret_withheld).toBe(false);
    expect((await chat()).choices[0].message.content).toBe('You said: hello');
  });

  it('every labelled key is bound to the origin it was set for: moving the base URL withholds them all, and only a key set again is sent to the new host', async () => {
    pb = await startPatchbay({ config: { providers: { openai: { baseUrl: `${urls.home}/v1` } } }, env: {}, keychainService });
    await api('PUT', '/providers/openai/secret', { secret: KEY });
    await api('PUT', '/providers/openai/secrets/work', { secret: WORK_KEY });
    expect((await chat()).choices[0].message.content).toBe('You said: hello');

    const moved = await api('PATCH', '/providers/openai', { baseUrl: `${urls.elsewhere}/v1` });
    expect(moved.json.secret_withheld).toBe(true);
    expect(moved.json.keys.map((k: { label: string; withheld: boolean }) => [k.label, k.withheld])).toEqual([['default', true], ['work', true]]);
    expect(moved.json.keys[1].notice).toContain('its key "work" is withheld until you set it again (patchbay providers set-key openai --label work)');
    expect(((await chat().catch((e: { status: number }) => e)) as { status: number }).status).toBe(503);
    expect(credentialsSeen(elsewhere)).toEqual([]);

    // Only the key set again for the new origin goes there; the other stays withheld, never sent.
    const reset = await api('PUT', '/providers/openai/secrets/work', { secret: NEW_KEY });
    expect(reset.json.secret_withheld).toBe(false);
    expect(reset.json.keys.map((k: { label: string; withheld: boolean }) => [k.label, k.withheld])).toEqual([['default', true], ['work', false]]);
    expect((await chat()).choices[0].message.content).toBe('You said: hello');
    expect((await chat()).choices[0].message.content).toBe('You said: hello');
    expect(credentialsSeen(elsewhere)).toEqual([`Bearer ${NEW_KEY}`, `Bearer ${NEW_KEY}`]);
    await api('DELETE', '/providers/openai/secrets/work');
  });

  it('an environment-variable key is bound to the base URL Patchbay started with', async () => {
    pb = await startPatchbay({ config: { providers: { openai: { baseUrl: `${urls.home}/v1` } } }, env: { OPENAI_API_KEY: KEY }, keychainService });
    const moved = await api('PATCH', '/providers/openai', { baseUrl: `${urls.elsewhere}/v1` });
    expect(moved.json).toMatchObject({ key_source: 'env', secret_withheld: true });
    expect(moved.json.notice).toContain('restart Patchbay with this base URL to use OPENAI_API_KEY');
    expect((await api('POST', '/providers/openai/test')).json.ok).toBe(false);
    await chat().catch(() => undefined);
    expect(credentialsSeen(elsewhere)).toEqual([]);
  });
});
