import OpenAI from 'openai';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../core/cli/run-cli.ts';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { TogetherEmulator } from '../emulators/together-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';
import { startPostgres, type TestPostgres } from '../helpers/start-postgres.ts';

const KEYS = { OPENAI_API_KEY: 'sk-test-team-openai', GROQ_API_KEY: 'gsk-test-team-groq', TOGETHER_API_KEY: 'tg-test-team-together' };
const LLAMA = 'llama-3.3-70b';
/** Generous: the machine is shared; the measured windows are printed, not asserted. */
const WAIT_MS = 10_000;

/** Polls (no I/O on the replica) until `done` holds; returns the ms it took. */
async function until(done: () => boolean, what: string, ms = WAIT_MS): Promise<number> {
  const started = performance.now();
  while (!done()) {
    if (performance.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return performance.now() - started;
}

/** A team's gateway: replicas on one PostgreSQL, the config, dashboard sessions and live events shared. */
describe('replicas on one PostgreSQL share the config, the dashboard sign-in and live events', () => {
  const openai = new OpenAiEmulator({ apiKey: KEYS.OPENAI_API_KEY });
  const groq = new GroqEmulator({ apiKey: KEYS.GROQ_API_KEY });
  const together = new TogetherEmulator({ apiKey: KEYS.TOGETHER_API_KEY });
  let cluster: TestPostgres;
  let databaseUrl: string;
  let config: { providers: Record<string, { baseUrl: string }>; routing: Record<string, unknown> };
  const replicas: TestPatchbay[] = [];
  const dataDirs: string[] = [];
  const windows: Record<string, number[]> = {};

  beforeAll(async () => {
    cluster = await startPostgres();
    databaseUrl = await cluster.createDatabase();
    config = {
      providers: { openai: { baseUrl: `${await openai.start()}/v1` }, groq: { baseUrl: `${await groq.start()}/openai/v1` }, together: { baseUrl: `${await together.start()}/v1` } },
      // Round-robin without sticky sessions: a strategy change shows in which provider answers.
      routing: { strategy: 'round-robin', stickyIdleMs: 0 },
    };
    // The deployment's admin token: one file, the same in every replica's data dir (docs/team.md).
    const token = `pba-${randomBytes(32).toString('base64url')}`;
    for (let i = 0; i < 2; i++) {
      dataDirs.push(mkdtempSync(join(tmpdir(), 'patchbay-team-replica-')));
      writeFileSync(join(dataDirs[i], 'admin-token'), `${token}\n`, { mode: 0o644 });
    }
    replicas.push(...(await Promise.all(dataDirs.map((dataDir) => startPatchbay({ config, env: KEYS, databaseUrl, dataDir })))));
    expect(replicas.map((r) => r.patchbay.adminToken)).toEqual([token, token]);
    // Made private at start, as every file of the data dir.
    for (const dataDir of dataDirs) expect(statSync(join(dataDir, 'admin-token')).mode & 0o777).toBe(0o600);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
    await Promise.all([openai.close(), groq.close(), together.close()]);
    await cluster?.stop();
    for (const [what, ms] of Object.entries(windows)) console.log(`[team settings] ${what}: ${ms.map((m) => m.toFixed(1)).join(' / ')} ms`);
  }, 60_000);

  /** The management API as the dashboard or CLI calls it, with that replica's admin token. */
  const api = async (replica: TestPatchbay, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${replica.patchbay.url}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${replica.patchbay.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.status, await response.clone().text()).toBeLessThan(300);
    return response.status === 204 ? null : response.json();
  };
  const chat = async (replica: TestPatchbay, model: string) => {
    const { data, response } = await replica.client.chat.completions.create({ model, messages: [{ role: 'user', content: 'which way?' }], max_tokens: 5 }).withResponse();
    return { provider: response.headers.get('x-patchbay-provider'), model: data.model, requestId: response.headers.get('x-patchbay-request-id') };
  };
  const failure = (replica: TestPatchbay, model: string) => chat(replica, model).then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
  const record = (what: string, ms: number) => (windows[what] ??= []).push(ms);

  it('a strategy, an alias, a chain and the pause changed through replica A route replica B', async () => {
    const [a, b] = replicas;
    // Before: round-robin on B reaches both Llama providers; B knows no "team-fast".
    const before = await Promise.all([1, 2, 3, 4].map(() => chat(b, LLAMA)));
    expect(new Set(before.map((x) => x.provider))).toEqual(new Set(['groq', 'together']));
    expect(await failure(b, 'team-fast')).toMatchObject({ status: 404 });

    await api(a, 'PUT', '/routing', { strategy: 'cost' });
    record('strategy set on A -> in force on B', await until(() => b.patchbay.config.strategy === 'cost', 'strategy'));
    const groqBefore = groq.count('/chat/completions');
    const togetherBefore = together.count('/chat/completions');
    for (let i = 0; i < 4; i++) expect((await chat(b, LLAMA)).provider).toBe('groq');
    expect(groq.count('/chat/completions') - groqBefore).toBe(4);
    expect(together.count('/chat/completions')).toBe(togetherBefore);

    await api(a, 'PUT', '/routing', { aliases: { 'team-fast': ['gpt-4o-mini'] } });
    record('alias set on A -> in force on B', await until(() => b.patchbay.config.aliases.has('team-fast'), 'alias'));
    expect(await chat(b, 'team-fast')).toMatchObject({ provider: 'openai' });
    expect(openai.requests.at(-1)!.body).toMatchObject({ model: 'gpt-4o-mini' });

    await api(a, 'PUT', '/routing', { fallbacks: { 'gpt-4o': [LLAMA] } });
    record('chain set on A -> in force on B', await until(() => b.patchbay.config.fallbacks.has('gpt-4o'), 'chain'));
    openai.inject({ path: '/chat/completions', status: 500, times: 1 });
    const groqBeforeChain = groq.count('/chat/completions');
    expect(await chat(b, 'gpt-4o')).toMatchObject({ provider: 'groq' });
    expect(groq.count('/chat/completions')).toBe(groqBeforeChain + 1);

    await api(a, 'PUT', '/routing', { paused: true });
    record('pause on A -> paused on B', await until(() => b.patchbay.config.paused, 'pause'));
    const openaiBefore = openai.count('/chat/completions');
    expect(await failure(b, 'gpt-4o-mini')).toMatchObject({ status: 503, code: 'routing_paused' });
    expect(openai.count('/chat/completions')).toBe(openaiBefore);
    await api(a, 'PUT', '/routing', { paused: false });
    record('resume on A -> routing on B', await until(() => !b.patchbay.config.paused, 'resume'));
    expect(await chat(b, 'gpt-4o-mini')).toMatchObject({ provider: 'openai' });
    // B's own API reports what A set (and takes the deployment's one admin token, as every replica does).
    expect(await api(b, 'GET', '/routing')).toMatchObject({ strategy: 'cost', paused: false, aliases: { 'team-fast': ['gpt-4o-mini'] }, fallbacks: { 'gpt-4o': [LLAMA] } });
  }, 60_000);

  it('a user provider added on A serves on B; a replica whose connection dropped catches up; a new replica starts with the team config', async () => {
    const [a, b] = replicas;
    // B's LISTEN connection is cut, then A changes the config before B is back: B must reload it after reconnecting.
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    const cut = await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [`patchbay settings ${b.patchbay.stores.postgres!.replica}`]);
    await admin.end();
    expect(cut.rowCount).toBe(1);
    // A user-defined provider (an OpenAI-compatible server of the team's own: here the OpenAI emulator under another name).
    const openaiBefore = openai.count('/chat/completions');
    await api(a, 'POST', '/providers', { name: 'team-llm', baseUrl: config.providers.openai.baseUrl, apiKeyEnv: 'OPENAI_API_KEY', models: [{ id: 'gpt-4o-mini' }] });
    record('provider added on A -> known on B after B reconnected', await until(() => b.patchbay.config.providers.has('team-llm'), 'reload after reconnect'));
    expect(await chat(b, 'team-llm/gpt-4o-mini')).toMatchObject({ provider: 'team-llm' });
    expect(openai.count('/chat/completions')).toBe(openaiBefore + 1);
    expect(b.logs.some((line) => line.includes('settings connection to PostgreSQL is back'))).toBe(true);
    // A third replica, its config.json still saying round-robin: the team's config (seeded by the first) wins.
    const c = await startPatchbay({ config, env: KEYS, databaseUrl });
    replicas.push(c);
    expect(c.patchbay.config.strategy).toBe('cost');
    expect(c.patchbay.config.providers.has('team-llm')).toBe(true);
    expect(c.logs.some((line) => line.includes('are not used: the team\'s config in PostgreSQL is'))).toBe(true);
  }, 60_000);

  it('a change that does not validate is a 400 on A and changes nothing anywhere', async () => {
    const [a, b] = replicas;
    const response = await fetch(`${a.patchbay.url}/api/routing`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${a.patchbay.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ aliases: { broken: ['no-such-model-anywhere'] } }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toMatch(/^routing\.aliases/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const replica of [a, b]) expect(replica.patchbay.config.aliases.has('broken')).toBe(false);
  });

  /** One HTTP call with exactly these headers (as the dashboard page sends them), through a round-robin proxy's eyes: any replica. */
  const call = async (replica: TestPatchbay, method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const response = await fetch(`${replica.patchbay.url}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, cookie: response.headers.get('set-cookie'), text: await response.text() };
  };

  it('signed in on A, the session works on B; signed out on B, A refuses it; codes and sessions stored only as hashes', async () => {
    const [a, b] = replicas;
    // Signed in on A with A's link; behind a round-robin proxy the next calls land anywhere.
    const code = new URL(await a.patchbay.signInLink()).hash.replace(/^#code=/, '');
    const signedIn = await call(a, 'POST', '/api/session', { origin: a.patchbay.url }, { code });
    expect(signedIn.status, signedIn.text).toBe(200);
    const cookie = signedIn.cookie!.split(';')[0];
    const token = (JSON.parse(signedIn.text) as { token: string }).token;
    expect(signedIn.cookie).toContain('HttpOnly');
    // Single use across replicas: the same code on B is refused.
    expect((await call(b, 'POST', '/api/session', { origin: b.patchbay.url }, { code })).status).toBe(401);
    // A code made on A signs in through B as well (the link printed by one replica, the proxy choosing another).
    const other = new URL(await a.patchbay.signInLink()).hash.replace(/^#code=/, '');
    expect((await call(b, 'POST', '/api/session', { origin: b.patchbay.url }, { code: other })).status).toBe(200);

    const session = { cookie, 'x-patchbay-session': token };
    for (const replica of [a, b]) expect((await call(replica, 'GET', '/api/keys', session)).status).toBe(200);
    // Either half alone opens nothing, on any replica.
    expect((await call(a, 'GET', '/api/keys', { cookie })).status).toBe(401);
    expect((await call(a, 'GET', '/api/keys', { 'x-patchbay-session': token })).status).toBe(401);
    expect((await call(a, 'GET', '/api/keys', { cookie, 'x-patchbay-session': 'x'.repeat(43) })).status).toBe(401);

    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      const stored = JSON.stringify((await admin.query('SELECT * FROM dashboard_sessions')).rows) + JSON.stringify((await admin.query('SELECT * FROM dashboard_codes')).rows);
      for (const secret of [code, cookie.split('=')[1], token]) expect(stored).not.toContain(secret);
    } finally {
      await admin.end();
    }

    expect((await call(b, 'DELETE', '/api/session', { ...session, origin: b.patchbay.url })).status).toBe(204);
    for (const replica of [a, b]) expect((await call(replica, 'GET', '/api/keys', session)).status).toBe(401);
  });

  it("a sign-in code expires on every replica, and an expired session is refused everywhere", async () => {
    const [a, b] = replicas;
    // Codes made on A 11 minutes ago (the store's clock is the replicas' own; the row says when it ends).
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      const code = new URL(await a.patchbay.signInLink()).hash.replace(/^#code=/, '');
      await admin.query('UPDATE dashboard_codes SET expires_at = $1', [Date.now() - 60_000]);
      expect((await call(b, 'POST', '/api/session', { origin: b.patchbay.url }, { code })).status).toBe(401);
      const fresh = new URL(await a.patchbay.signInLink()).hash.replace(/^#code=/, '');
      const signedIn = await call(b, 'POST', '/api/session', { origin: b.patchbay.url }, { code: fresh });
      const session = { cookie: signedIn.cookie!.split(';')[0], 'x-patchbay-session': (JSON.parse(signedIn.text) as { token: string }).token };
      expect((await call(a, 'GET', '/api/keys', session)).status).toBe(200);
      // Idle past its limit (12 h), as another replica's clock would see it.
      await admin.query('UPDATE dashboard_sessions SET last_seen = $1', [Date.now() - 13 * 3_600_000]);
      expect((await call(a, 'GET', '/api/keys', session)).status).toBe(401);
      expect((await call(b, 'GET', '/api/keys', session)).status).toBe(401);
    } finally {
      await admin.end();
    }
  });

  it("the live events on A show the requests B served (and B's own tab sees A's), with no secret in them", async () => {
    const [a, b] = replicas;
    // What goes over the channel, as any client of the database could see it.
    const wire = new pg.Client({ connectionString: databaseUrl });
    const payloads: string[] = [];
    await wire.connect();
    wire.on('notification', (message) => payloads.push(message.payload ?? ''));
    await wire.query('LISTEN patchbay_events');
    // No dashboard open anywhere: the replicas publish nothing.
    await Promise.all([chat(a, 'gpt-4o-mini'), chat(b, 'gpt-4o-mini')]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(payloads).toEqual([]);
    const tabs = await Promise.all([a, b].map((replica) => openEvents(replica)));
    try {
      // Opening a tab makes its replica announce it through PostgreSQL; the others publish from when they hear it.
      const crossing = async (from: TestPatchbay, tab: (typeof tabs)[number]) => {
        for (let attempt = 0; attempt < 20; attempt++) {
          const served = await chat(from, 'gpt-4o-mini');
          const answeredAt = performance.now();
          const seen = await tab.waitFor((e) => e.event === 'request' && e.data.request_id === served.requestId, 1_000).catch(() => undefined);
          if (seen) return { served, seen, ms: performance.now() - answeredAt };
        }
        throw new Error('no request crossed between the replicas');
      };
      const { served: servedByB, seen: onA, ms } = await crossing(b, tabs[0]);
      record('request answered on B -> its event on A', ms);
      const { served: servedByA, seen: onB } = await crossing(a, tabs[1]);
      expect(onA.data).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini', status: 200 });
      expect(onB.data).toMatchObject({ provider: 'openai', status: 200 });
      // Each request shows once per tab: a replica's own events are not echoed back to it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(tabs[0].events.filter((e) => e.data.request_id === servedByA.requestId).length).toBe(1);
      expect(tabs[0].events.filter((e) => e.data.request_id === servedByB.requestId).length).toBe(1);
      for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThan(8_000);
      const everything = JSON.stringify(tabs.map((t) => t.events)) + payloads.join('\n');
      for (const secret of [...Object.values(KEYS), a.key, b.key, a.patchbay.adminToken]) expect(everything).not.toContain(secret);
    } finally {
      for (const tab of tabs) tab.close();
      await wire.end();
    }
  });
  it('the CLI on a machine with no replica running (PATCHBAY_DATABASE_URL) changes the strategy and pauses every replica', async () => {
    const [a, b] = replicas;
    const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-team-cli-'));
    const run = async (args: string[]) => {
      let out = '';
      let err = '';
      const code = await runCli(args, { out: (t) => (out += t), err: (t) => (err += t), env: { PATCHBAY_DATABASE_URL: databaseUrl, PATCHBAY_KEYCHAIN_SERVICE: `patchbay-test-team-cli-${process.pid}` } });
      return { code, out, err };
    };
    try {
      expect(await run(['routing', 'strategy', 'availability', '--data-dir', dataDir])).toMatchObject({ code: 0 });
      await until(() => a.patchbay.config.strategy === 'availability' && b.patchbay.config.strategy === 'availability', 'strategy from the CLI');
      expect(await run(['routing', 'pause', '--data-dir', dataDir])).toMatchObject({ code: 0 });
      await until(() => a.patchbay.config.paused && b.patchbay.config.paused, 'pause from the CLI');
      expect(await failure(a, 'gpt-4o-mini')).toMatchObject({ status: 503, code: 'routing_paused' });
      expect(await run(['routing', 'resume', '--data-dir', dataDir])).toMatchObject({ code: 0 });
      await until(() => !a.patchbay.config.paused && !b.patchbay.config.paused, 'resume from the CLI');
      expect(await chat(a, 'gpt-4o-mini')).toMatchObject({ provider: 'openai' });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('while PostgreSQL is away a change is refused with a 503 and changes nothing; once back, changes reach every replica again', async () => {
    const [a, b] = replicas;
    const before = a.patchbay.config.strategy;
    await cluster.stopServer();
    try {
      const refused = await fetch(`${a.patchbay.url}/api/routing`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${a.patchbay.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ strategy: 'latency' }),
      });
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('database_unavailable');
      for (const replica of [a, b]) expect(replica.patchbay.config.strategy).toBe(before);
      // /v1 goes on routing with the config each replica has.
      expect(await chat(b, 'gpt-4o-mini')).toMatchObject({ provider: 'openai' });
    } finally {
      await cluster.startServer();
    }
    // The first calls after the restart may meet the pool's dropped connections: a person would retry.
    const started = performance.now();
    for (;;) {
      const answer = await fetch(`${b.patchbay.url}/api/routing`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${b.patchbay.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ strategy: 'latency' }),
      });
      if (answer.status === 200) break;
      expect(answer.status).toBe(503);
      if (performance.now() - started > 20_000) throw new Error('PostgreSQL did not come back');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    record('after a PostgreSQL restart: strategy set on B -> in force on A', await until(() => a.patchbay.config.strategy === 'latency', 'strategy after restart', 20_000));
  }, 60_000);
});

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** A dashboard tab reading GET /api/events on one replica: collects every event, and can wait for one. */
async function openEvents(replica: TestPatchbay) {
  const controller = new AbortController();
  const response = await fetch(`${replica.patchbay.url}/api/events`, { headers: { authorization: `Bearer ${replica.patchbay.adminToken}` }, signal: controller.signal });
  expect(response.status).toBe(200);
  const events: SseEvent[] = [];
  let text = '';
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body!) {
        text += decoder.decode(chunk as Uint8Array, { stream: true });
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const frame = text.slice(0, end);
          text = text.slice(end + 2);
          const name = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (name && data !== undefined) events.push({ event: name, data: JSON.parse(data) as Record<string, unknown> });
        }
      }
    } catch {
      // Aborted by the test.
    }
  })();
  const waitFor = async (test: (e: SseEvent) => boolean, ms = WAIT_MS) => {
    await until(() => events.some(test), 'the event', ms);
    return events.find(test)!;
  };
  return { events, waitFor, close: () => controller.abort() };
}
