import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

const KEY = 'sk-provider-test-0123456789abcdef';

describe('the provider key test says what the provider answered', () => {
  const openai = new OpenAiEmulator({ apiKey: KEY });
  const elsewhere = new OpenAiEmulator({ apiKey: 'sk-other' });
  let pb: TestPatchbay;
  let elsewhereUrl: string;

  const test = async () => {
    const response = await fetch(`${pb.patchbay.url}/api/providers/openai/test`, { method: 'POST', headers: { authorization: `Bearer ${pb.patchbay.adminToken}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as { ok: boolean; status: number; message: string };
  };

  beforeAll(async () => {
    const upstream = await openai.start();
    elsewhereUrl = await elsewhere.start();
    pb = await startPatchbay({ config: { providers: { openai: { baseUrl: `${upstream}/v1` } } }, env: { OPENAI_API_KEY: KEY } });
  });
  afterAll(async () => {
    await pb?.stop();
    await Promise.all([openai.close(), elsewhere.close()]);
  });

  it('a 2xx to the authenticated model list: the key was accepted', async () => {
    expect(await test()).toMatchObject({ ok: true, status: 200, message: 'openai accepted the key.' });
  });

  it.each([301, 302, 307, 308])('a %i redirect is not an acceptance: it names the status and where it pointed, and says the key was not checked', async (status) => {
    openai.inject({ path: '/models', status, headers: { location: `${elsewhereUrl}/v1/models` } });
    const result = await test();
    expect(result).toMatchObject({ ok: false, status });
    expect(result.message).toBe(`openai answered ${status} redirect to ${elsewhereUrl}/v1/models; the key was not checked (Patchbay does not follow redirects, so the key is never sent elsewhere). Check the base URL.`);
    // Not followed: the other host never saw a request, let alone the key.
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('a redirect without a Location says so', async () => {
    openai.inject({ path: '/models', status: 303 });
    expect((await test()).message).toBe('openai answered 303 redirect (no Location); the key was not checked (Patchbay does not follow redirects, so the key is never sent elsewhere). Check the base URL.');
  });
});
