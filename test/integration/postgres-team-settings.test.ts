import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
async function until(done: () => boolean, what: string): Promise<number> {
  const started = performance.now();
  while (!done()) {
    if (performance.now() - started > WAIT_MS) throw new Error(`${what}: not within ${WAIT_MS} ms`);
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
  const windows: Record<string, number[]> = {};

  beforeAll(async () => {
    cluster = await startPostgres();
    databaseUrl = await cluster.createDatabase();
    config = {
      providers: { openai: { baseUrl: `${await openai.start()}/v1` }, groq: { baseUrl: `${await groq.start()}/openai/v1` }, together: { baseUrl: `${await together.start()}/v1` } },
      // Round-robin without sticky sessions: a strategy change shows in which provider answers.
      routing: { strategy: 'round-robin', stickyIdleMs: 0 },
    };
    replicas.push(...(await Promise.all([0, 1].map(() => startPatchbay({ config, env: KEYS, databaseUrl })))));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
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
    // B's own API reports what A set.
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
});
