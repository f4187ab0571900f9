import OpenAI from 'openai';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

const UPSTREAM_KEY = 'sk-public-origin-upstream';

/** A raw HTTP call, from a chosen local address (a proxy's, or another machine's stand-in on loopback). */
function call(url: string, options: { method?: string; headers?: Record<string, string>; body?: string; from?: string }) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers, localAddress: options.from, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('behind a reverse proxy: Patchbay\'s own origin from server.trustedProxies, and from server.publicUrl', () => {
  let behindProxy: TestPatchbay;
  let withPublicUrl: TestPatchbay;
  beforeAll(async () => {
    behindProxy = await startPatchbay({ config: { server: { allowedHosts: ['patchbay.internal'], trustedProxies: ['127.0.0.1'] } } });
    withPublicUrl = await startPatchbay({ config: { server: { publicUrl: 'https://patchbay.example.com' } } });
  }, 60_000);
  afterAll(async () => {
    await behindProxy?.stop();
    await withPublicUrl?.stop();
  });

  const signIn = (pb: TestPatchbay, headers: Record<string, string>, from?: string) =>
    call(`${pb.patchbay.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"code":"not-a-code"}', from });

  it('from the trusted proxy, a page of the scheme it forwards is Patchbay\'s own; its sign-in links use that origin', async () => {
    const viaProxy = { host: 'patchbay.internal', 'x-forwarded-proto': 'https' };
    // Past the origin checks: the wrong code is what is refused (401), not the origin (403).
    expect((await signIn(behindProxy, { ...viaProxy, origin: 'https://patchbay.internal' }, '127.0.0.1')).status).toBe(401);
    expect((await signIn(behindProxy, { host: 'patchbay.internal', forwarded: 'for=198.51.100.7;proto=https', origin: 'https://patchbay.internal' }, '127.0.0.1')).status).toBe(401);
    const code = await call(`${behindProxy.patchbay.url}/api/session/code`, { method: 'POST', headers: { ...viaProxy, authorization: `Bearer ${behindProxy.patchbay.adminToken}` }, from: '127.0.0.1' });
    expect(JSON.parse(code.body).url).toMatch(/^https:\/\/patchbay\.internal\/ui\/#code=/);
  });

  it('the same headers from any other address are ignored: the https page is refused', async () => {
    const refused = await signIn(behindProxy, { host: 'patchbay.internal', 'x-forwarded-proto': 'https', origin: 'https://patchbay.internal' }, '127.0.0.2');
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error.message).toContain('set server.publicUrl');
    // A page of the plain-http origin is the request's own there, as before.
    expect((await signIn(behindProxy, { host: 'patchbay.internal', origin: 'http://patchbay.internal' }, '127.0.0.2')).status).toBe(401);
  });

  it('with server.publicUrl: exactly that origin, whoever forwards what; its host passes the guard; links and the base URL use it', async () => {
    const pb = withPublicUrl.patchbay;
    expect((await signIn(withPublicUrl, { host: 'patchbay.example.com', origin: 'https://patchbay.example.com' })).status).toBe(401);
    for (const origin of ['http://patchbay.example.com', 'https://evil.example', `${pb.url}`]) {
      expect([origin, (await signIn(withPublicUrl, { host: 'patchbay.example.com', origin, 'x-forwarded-proto': 'https' })).status]).toEqual([origin, 403]);
    }
    expect(await pb.signInLink()).toMatch(/^https:\/\/patchbay\.example\.com\/ui\/#code=/);
    expect(pb.management.status()).toMatchObject({ base_url: 'https://patchbay.example.com/v1' });
    // The desktop window's own link stays on this machine.
    expect(pb.createSignInUrl().startsWith(`${pb.url}/ui/#code=`)).toBe(true);
  });
});

describe('SIGTERM behind a proxy: draining, then no new connection, streams in flight finished', () => {
  const emulator = new OpenAiEmulator({ apiKey: UPSTREAM_KEY });
  let pb: TestPatchbay;
  beforeAll(async () => {
    emulator.chunkDelayMs = 100;
    const upstream = await emulator.start();
    pb = await startPatchbay({ config: { server: { drainMs: 1500 }, providers: { openai: { baseUrl: `${upstream}/v1` } } }, env: { OPENAI_API_KEY: UPSTREAM_KEY } });
  }, 60_000);
  afterAll(async () => {
    await pb?.stop();
    await emulator.close();
  });

  it('says draining, serves what still arrives (closing its connection), then refuses connections; the stream in flight ends whole', async () => {
    const { url } = pb.patchbay;
    expect(await call(`${url}/health`, {})).toMatchObject({ status: 200, body: '{"status":"ready"}' });
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: pb.key, maxRetries: 0 });
    const prompt = 'a long answer one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty';
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: prompt }] });
    const read = (async () => {
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      return text;
    })();
    const shutdown = pb.patchbay.shutdown();
    expect(await call(`${url}/health`, {})).toMatchObject({ status: 503, body: '{"status":"draining"}' });
    const during = await call(`${url}/v1/models`, { headers: { authorization: `Bearer ${pb.key}` } });
    expect(during).toMatchObject({ status: 200, headers: { connection: 'close' } });
    // Once the drain is over the listener is closed: a new connection is refused (a proxy retries it elsewhere).
    await expect.poll(async () => call(`${url}/health`, {}).then(() => 'answered', (error: NodeJS.ErrnoException) => error.code), { timeout: 10_000 }).toBe('ECONNREFUSED');
    expect(await read).toBe(`You said: ${prompt}`);
    await shutdown;
    expect(pb.logs.join('\n')).toMatch(/Draining: \/health says "draining"; serving on for 1500 ms/);
  });
});
