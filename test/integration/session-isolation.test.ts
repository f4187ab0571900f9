import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { TogetherEmulator } from '../emulators/together-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';
import { startPostgres, type TestPostgres } from '../helpers/start-postgres.ts';

const PROVIDER_KEYS = { GROQ_API_KEY: 'gsk-test-isolation-groq', TOGETHER_API_KEY: 'tg-test-isolation-together' };
const MODEL = 'llama-3.3-70b';
const TOGETHER_ONLY = 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo';
/** Long enough to be a prompt prefix worth remembering (prefix-affinity.ts). */
const SYSTEM = `You are the victim's coding agent, with the victim's own instructions. ${Array.from({ length: 200 }, (_, i) => `rule${i}`).join(' ')}`;

interface Turn {
  provider: string | null;
  reason: string;
}

/**
 * Issue 34 (1, 2): sticky routing, prefix affinity and session rollups were shared between Patchbay
 * keys. A key that named another key's session id moved that session to another provider and
 * counted in it on the Sessions page; and the route reason said where another key's session (or
 * prompt) went and how often. Each case runs on one Patchbay with SQLite and on two replicas of one
 * PostgreSQL (the victim on one replica, the others on both).
 */
describe.each(['sqlite', 'postgres'] as const)('a session belongs to the key that started it (%s)', (backend) => {
  const groq = new GroqEmulator({ apiKey: PROVIDER_KEYS.GROQ_API_KEY });
  const together = new TogetherEmulator({ apiKey: PROVIDER_KEYS.TOGETHER_API_KEY });
  let cluster: TestPostgres | undefined;
  const replicas: TestPatchbay[] = [];
  const secrets = { victim: '', attacker: '', prober: '' };
  const ids = { victim: '', attacker: '', prober: '' };

  beforeAll(async () => {
    const config = { providers: { groq: { baseUrl: `${await groq.start()}/openai/v1` }, together: { baseUrl: `${await together.start()}/v1` } }, routing: { strategy: 'round-robin' } };
    let databaseUrl: string | undefined;
    if (backend === 'postgres') {
      cluster = await startPostgres();
      databaseUrl = await cluster.createDatabase();
    }
    replicas.push(await startPatchbay({ config, env: PROVIDER_KEYS, databaseUrl }));
    if (databaseUrl) replicas.push(await startPatchbay({ config, env: PROVIDER_KEYS, databaseUrl }));
    const management = replicas[0].patchbay.management;
    for (const [who, input] of [['victim', { name: 'victim' }], ['attacker', { name: 'attacker', allowed_models: [TOGETHER_ONLY] }], ['prober', { name: 'prober' }]] as ['victim' | 'attacker' | 'prober', { name: string; allowed_models?: string[] }][]) {
      const { key, secret } = await management.createKey(input);
      secrets[who] = secret;
      ids[who] = key.id;
    }
    // Every replica knows every key before the first request.
    for (const replica of replicas) for (const secret of Object.values(secrets)) while (!replica.patchbay.stores.keys.check(secret).ok) await new Promise((resolve) => setTimeout(resolve, 10));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await Promise.all([groq.close(), together.close()]);
    await cluster?.stop();
  }, 60_000);

  const on = (replica: number) => replicas[Math.min(replica, replicas.length - 1)];
  const chat = async (replica: number, secret: string, messages: { role: string; content: string }[], session?: string): Promise<Turn> => {
    const response = await fetch(`${on(replica).patchbay.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...(session ? { 'X-Patchbay-Session': session } : {}) },
      body: JSON.stringify({ model: MODEL, messages }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    await response.arrayBuffer();
    return { provider: response.headers.get('x-patchbay-provider'), reason: response.headers.get('x-patchbay-route-reason') ?? '' };
  };
  const victimAsks = (n: number, session?: string) => chat(0, secrets.victim, [{ role: 'system', content: SYSTEM }, { role: 'user', content: `the victim's first request ${n}` }], session);

  it("another key naming the victim's session id neither moves it nor joins it; the victim's session rolls up alone", async () => {
    // The victim's session on Groq (round-robin alternates: a second id if the first landed on Together).
    let session = `victim-session-${backend}-1`;
    if ((await victimAsks(1, session)).provider !== 'groq') {
      session = `victim-session-${backend}-2`;
      expect((await victimAsks(1, session)).provider).toBe('groq');
    }
    for (let i = 2; i <= 3; i++) expect(await victimAsks(i, session)).toMatchObject({ provider: 'groq' });

    // The attacker, allowed only Together, names the victim's session (on every replica).
    for (let replica = 0; replica < replicas.length; replica++) expect((await chat(replica, secrets.attacker, [{ role: 'user', content: 'hijack' }], session)).provider).toBe('together');

    // The victim stays where it was.
    for (let i = 4; i <= 6; i++) {
      const turn = await victimAsks(i, session);
      expect(turn.provider).toBe('groq');
      expect(turn.reason).toMatch(/sticky: groq\/\S+ answered this session \d+ time\(s\) in a row/);
    }

    // The Sessions page (on the other replica, when there are two): the victim's session has the
    // victim's six requests only; the attacker's request is its own session, of its own key.
    await Promise.all(replicas.map((r) => r.patchbay.stores.usage.flushAsync()));
    const day = new Date().toISOString().slice(0, 10);
    const page = await on(1).patchbay.management.usageSessions({ from: day, to: day, limit: 50 } as never);
    const named = page.data.filter((row) => row.session_id === session);
    expect(named.map((row) => ({ key: row.key_id, requests: row.requests })).sort((a, b) => a.requests - b.requests)).toEqual([
      { key: ids.attacker, requests: replicas.length },
      { key: ids.victim, requests: 6 },
    ]);
    expect(named.find((row) => row.key_id === ids.victim)!.providers).toEqual(['groq']);
  });

  it("the route reason says nothing about another key's session or prompt: it is what an unused id or a new prompt gets", async () => {
    const session = `victim-session-${backend}-3`;
    for (let i = 1; i <= 3; i++) await victimAsks(10 + i, session);
    for (let replica = 0; replica < replicas.length; replica++) {
      // A key that may use both providers names the victim's session, then an id nobody used.
      const theirs = await chat(replica, secrets.prober, [{ role: 'user', content: 'probe' }], session);
      const unused = await chat(replica, secrets.prober, [{ role: 'user', content: 'probe' }], `never-used-${backend}-${replica}`);
      for (const turn of [theirs, unused]) {
        expect(turn.reason).not.toMatch(/sticky|answered this/);
        expect(turn.reason).toMatch(/round-robin chose (groq|together)\//);
      }
      // Repeating the victim's system prompt and first message: no word of the victim's prefix.
      const prefix = await chat(replica, secrets.prober, [{ role: 'system', content: SYSTEM }, { role: 'user', content: "the victim's first request 11" }]);
      expect(prefix.reason).not.toMatch(/sticky|prompt prefix|answered this/);
    }
    // The victim's own requests still say how its session went.
    expect((await victimAsks(14, session)).reason).toMatch(/sticky: .* answered this session 3 time\(s\) in a row/);
  });
});
