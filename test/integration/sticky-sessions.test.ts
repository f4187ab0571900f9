import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { TogetherEmulator } from '../emulators/together-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';

const KEYS = { GROQ_API_KEY: 'gsk-test-sticky-groq', TOGETHER_API_KEY: 'tg-test-sticky-together' };
const MODEL = 'llama-3.3-70b';
/** Long enough for the emulated providers' prompt cache (1,024 tokens at least). */
const SYSTEM = `You are a careful coding agent. ${Array.from({ length: 1200 }, (_, i) => `rule${i}`).join(' ')}`;

type Message = { role: string; content: string };
type Turn = { provider: string | null; reason: string; status: number; cached: number };

/**
 * Sessions on a model two providers serve: with stickiness a session stays on the endpoint that
 * answered it, and reads its growing prefix from that provider's cache; it moves only when that
 * endpoint fails, then stays where it was answered.
 */
describe('sticky routing of agent sessions', () => {
  const groq = new GroqEmulator({ apiKey: KEYS.GROQ_API_KEY });
  const together = new TogetherEmulator({ apiKey: KEYS.TOGETHER_API_KEY });
  const urls = { groq: '', together: '' };
  let pb: TestPatchbay | undefined;

  beforeAll(async () => {
    urls.groq = `${await groq.start()}/openai/v1`;
    urls.together = `${await together.start()}/v1`;
  });
  afterEach(async () => {
    await pb?.stop();
    pb = undefined;
    groq.clearFaults();
    together.clearFaults();
  });
  afterAll(async () => {
    await Promise.all([groq.close(), together.close()]);
  });

  const start = async (routing: Record<string, unknown> = { strategy: 'round-robin' }) => {
    pb = await startPatchbay({ config: { providers: { groq: { baseUrl: urls.groq }, together: { baseUrl: urls.together } }, routing }, env: KEYS });
    return pb;
  };

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${pb!.patchbay.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pb!.key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { response, body: (await response.json()) as Record<string, unknown> };
  };

  /** An agent's conversation: each turn resends everything before it and adds one user message. */
  const conversation = (name: string) => {
    const messages: Message[] = [{ role: 'system', content: `${name}. ${SYSTEM}` }];
    return async (headers: Record<string, string> = {}, model = MODEL): Promise<Turn> => {
      messages.push({ role: 'user', content: `${name}: step ${messages.length} of the task, please continue` });
      const { response, body } = await post('/v1/chat/completions', { model, messages }, headers);
      if (response.status === 200) messages.push({ role: 'assistant', content: (body as { choices: { message: { content: string } }[] }).choices[0].message.content });
      const usage = body.usage as { prompt_tokens_details?: { cached_tokens?: number } } | undefined;
      return { provider: response.headers.get('x-patchbay-provider'), reason: response.headers.get('x-patchbay-route-reason') ?? '', status: response.status, cached: usage?.prompt_tokens_details?.cached_tokens ?? 0 };
    };
  };

  it('keeps a session on its endpoint across turns, reading its prefix from that provider’s cache; moves only when it fails, then stays', async () => {
    await start();
    const turn = conversation('A');
    const session = { 'X-Patchbay-Session': 'agent-session-A' };
    const first = await turn(session);
    const home = first.provider!;
    const other = home === 'groq' ? 'together' : 'groq';
    expect(first.reason).toContain('round-robin chose');
    const turns = [first];
    for (let i = 0; i < 5; i++) turns.push(await turn(session));
    // Round-robin alone would alternate; the session stays.
    expect(turns.map((t) => t.provider)).toEqual(Array(6).fill(home));
    for (const later of turns.slice(1)) {
      expect(later.reason).toMatch(/sticky: .* answered this session \d+ time\(s\) in a row/);
      expect(later.cached).toBeGreaterThan(1000);
    }
    expect(first.cached).toBe(0);

    // Its endpoint fails: fallback works as today, and the session then stays where it was answered.
    (home === 'groq' ? groq : together).inject({ path: '/chat/completions', status: 500 });
    const moved = await turn(session);
    expect(moved).toMatchObject({ status: 200, provider: other });
    // The new provider never saw this prefix: nothing read from its cache.
    expect(moved.cached).toBe(0);
    const after = [await turn(session), await turn(session), await turn(session)];
    expect(after.map((t) => t.provider)).toEqual([other, other, other]);
    expect(after[2].cached).toBeGreaterThan(1000);

    const rows = usageRows(pb!.patchbay);
    expect(rows).toHaveLength(10);
    for (const row of rows) expect(row).toMatchObject({ session_id: 'agent-session-A', session_source: 'patchbay' });
    expect(rows[1].route_reason).toContain('sticky');
    expect(rows[6].attempts).toMatchObject([{ provider: home, status: 500 }, { provider: other, status: 200 }]);
    expect(rows[7].route_reason).toContain(`sticky: ${other}/`);
    expect(rows[1].cache_read_tokens as number).toBeGreaterThan(1000);
  });

  it('two sessions keep their own endpoints; X-Patchbay-Sticky: off and a pinned provider let the strategy pick every time', async () => {
    await start();
    const a = conversation('A');
    const b = conversation('B');
    const onA = (await a({ 'X-Patchbay-Session': 'A' })).provider;
    const onB = (await b({ 'X-Patchbay-Session': 'B' })).provider;
    // Round-robin's next turn gave the second session the other endpoint; both then stay.
    expect(onB).not.toBe(onA);
    for (let i = 0; i < 3; i++) {
      expect((await a({ 'X-Patchbay-Session': 'A' })).provider).toBe(onA);
      expect((await b({ 'X-Patchbay-Session': 'B' })).provider).toBe(onB);
    }

    const off = conversation('C');
    const providers: (string | null)[] = [];
    const cached: number[] = [];
    for (let i = 0; i < 4; i++) {
      const t = await off({ 'X-Patchbay-Session': 'C', 'X-Patchbay-Sticky': 'off' });
      providers.push(t.provider);
      cached.push(t.cached);
      expect(t.reason).not.toContain('sticky');
    }
    expect(new Set(providers).size).toBe(2);
    // Hopping: the second turn lands on a provider that never saw the prefix.
    expect(cached[1]).toBe(0);

    const pinned = conversation('D');
    for (let i = 0; i < 2; i++) {
      const t = await pinned({ 'X-Patchbay-Session': 'D' }, 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo');
      expect(t).toMatchObject({ provider: 'together' });
      expect(t.reason).toContain('pinned to together/');
      expect(t.reason).not.toContain('sticky');
    }
  });

  it('without a session id, the prompt prefix names the session; explain says whether a session would stay', async () => {
    await start();
    const turn = conversation('prefix');
    const first = await turn();
    const next = [await turn(), await turn(), await turn()];
    expect(next.map((t) => t.provider)).toEqual([first.provider, first.provider, first.provider]);
    expect(next[0].reason).toContain('answered this prompt prefix');
    expect(usageRows(pb!.patchbay)[1]).toMatchObject({ session_id: null });

    const session = conversation('explained');
    const home = (await session({ 'X-Patchbay-Session': 'explained-1' })).provider;
    // A session is its key's: explain names the key too.
    const keyId = (pb!.patchbay.stores.keys.check(pb!.key) as { record: { id: string } }).record.id;
    const explained = await post('/api/routing/explain', { model: MODEL, strategy: 'round-robin', session: 'explained-1', key_id: keyId }, { authorization: `Bearer ${pb!.patchbay.adminToken}` });
    expect(explained.response.status).toBe(200);
    expect(explained.body.sticky).toMatchObject({ kept: true });
    expect((explained.body.sticky as { endpoint: string }).endpoint).toMatch(new RegExp(`^${home}/`));
    expect((explained.body.candidates as { provider: string }[])[0].provider).toBe(home);
    expect(explained.body.reason).toContain('sticky');
    const unknown = await post('/api/routing/explain', { model: MODEL, session: 'never-seen', key_id: keyId }, { authorization: `Bearer ${pb!.patchbay.adminToken}` });
    expect(unknown.body.sticky).toMatchObject({ kept: false, endpoint: null });
    // The same id under no key (or another key) is another session.
    const keyless = await post('/api/routing/explain', { model: MODEL, strategy: 'round-robin', session: 'explained-1' }, { authorization: `Bearer ${pb!.patchbay.adminToken}` });
    expect(keyless.body.sticky).toMatchObject({ kept: false, endpoint: null });
  });

  it('a session idle longer than routing.stickyIdleMs goes back to the strategy', async () => {
    await start({ strategy: 'round-robin', stickyIdleMs: 1 });
    const turn = conversation('idle');
    const session = { 'X-Patchbay-Session': 'idle' };
    const providers: (string | null)[] = [];
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const t = await turn(session);
      providers.push(t.provider);
      expect(t.reason).not.toContain('sticky:');
    }
    expect(new Set(providers).size).toBe(2);
  });
});
