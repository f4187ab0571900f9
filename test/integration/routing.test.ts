import OpenAI from 'openai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { TogetherEmulator } from '../emulators/together-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';

const KEYS = { OPENAI_API_KEY: 'sk-test-route-openai', GROQ_API_KEY: 'gsk-test-route-groq', TOGETHER_API_KEY: 'tg-test-route-together' };
const ALIAS = 'llama-3.3-70b';
const GROQ_MODEL = 'llama-3.3-70b-versatile';
const TOGETHER_MODEL = 'meta-llama/Llama-3.3-70B-Instruct-Turbo';

type Answer = { provider: string | null; model: string; reason: string | null; strategy: string | null };

describe('routing: strategies, fallback, circuit breakers', () => {
  const openai = new OpenAiEmulator({ apiKey: KEYS.OPENAI_API_KEY });
  const groq = new GroqEmulator({ apiKey: KEYS.GROQ_API_KEY });
  const together = new TogetherEmulator({ apiKey: KEYS.TOGETHER_API_KEY });
  const urls = { openai: '', groq: '', together: '' };
  let pb: TestPatchbay | undefined;

  beforeAll(async () => {
    urls.openai = `${await openai.start()}/v1`;
    urls.groq = `${await groq.start()}/openai/v1`;
    urls.together = `${await together.start()}/v1`;
  });
  afterEach(async () => {
    await pb?.stop();
    pb = undefined;
    for (const emulator of [openai, groq, together]) {
      emulator.clearFaults();
      emulator.latencyMs = 0;
    }
  });
  afterAll(async () => {
    await Promise.all([openai.close(), groq.close(), together.close()]);
  });

  const start = async (extra: { routing?: Record<string, unknown>; providers?: Record<string, Record<string, unknown>>; healthClock?: () => number } = {}) => {
    const providers: Record<string, Record<string, unknown>> = {
      openai: { baseUrl: urls.openai },
      groq: { baseUrl: urls.groq },
      together: { baseUrl: urls.together },
    };
    for (const [name, settings] of Object.entries(extra.providers ?? {})) providers[name] = { ...providers[name], ...settings };
    pb = await startPatchbay({ config: { providers, routing: extra.routing }, env: KEYS, healthClock: extra.healthClock });
    return pb;
  };
  const chat = async (model: string, options: { headers?: Record<string, string>; body?: Record<string, unknown> } = {}): Promise<Answer> => {
    const { data, response } = await pb!.client.chat.completions
      .create({ model, messages: [{ role: 'user', content: 'route me' }], ...options.body } as never, { headers: options.headers })
      .withResponse();
    return {
      provider: response.headers.get('x-patchbay-provider'),
      model: (data as { model: string }).model,
      reason: response.headers.get('x-patchbay-route-reason'),
      strategy: response.headers.get('x-patchbay-strategy'),
    };
  };
  const failure = (model: string, headers?: Record<string, string>) => chat(model, { headers }).then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
  const lastRow = () => usageRows(pb!.patchbay).at(-1)!;

  describe('strategies', () => {
    it('cost picks the endpoint with the lower expected price, in either direction', async () => {
      await start();
      expect((await chat(`${ALIAS}:cost`)).provider).toBe('groq');
      await pb!.stop();
      await start({ providers: { together: { models: [{ id: TOGETHER_MODEL, inputPrice: 0.01, outputPrice: 0.01 }] } } });
      const answer = await chat(ALIAS, { headers: { 'X-Patchbay-Strategy': 'cost' } });
      expect(answer).toMatchObject({ provider: 'together', strategy: 'cost' });
      expect(answer.reason).toContain('cost chose together/');
    });

    it('latency tries each endpoint once, then keeps to the faster one', async () => {
      await start();
      groq.latencyMs = 120;
      const first = [await chat(`${ALIAS}:latency`), await chat(`${ALIAS}:latency`)].map((a) => a.provider).sort();
      expect(first).toEqual(['groq', 'together']);
      const next = await Promise.all(Array.from({ length: 6 }, () => chat(`${ALIAS}:latency`)));
      expect(next.every((a) => a.provider === 'together')).toBe(true);
    });

    it('availability avoids the flaky endpoint', async () => {
      await start();
      groq.inject({ path: '/chat/completions', status: 500, times: 3 });
      // Round-robin spreads the first requests, so groq fails three times (each falling back to together).
      for (let i = 0; i < 6; i++) await chat(`${ALIAS}:round-robin`);
      const groqBefore = groq.count('/chat/completions');
      const answers = await Promise.all(Array.from({ length: 10 }, () => chat(`${ALIAS}:availability`)));
      expect(answers.every((a) => a.provider === 'together')).toBe(true);
      expect(groq.count('/chat/completions')).toBe(groqBefore);
    });

    it('round-robin spreads 100 requests evenly, within one', async () => {
      await start();
      const counts: Record<string, number> = {};
      for (let i = 0; i < 100; i++) {
        const { provider } = await chat(ALIAS, { headers: { 'X-Patchbay-Strategy': 'round-robin' } });
        counts[provider!] = (counts[provider!] ?? 0) + 1;
      }
      expect(Object.keys(counts).sort()).toEqual(['groq', 'together']);
      expect(Math.abs(counts.groq - counts.together)).toBeLessThanOrEqual(1);
    });

    it('balanced is the default and says why it chose', async () => {
      await start();
      const answer = await chat(ALIAS);
      expect(answer.strategy).toBe('balanced');
      expect(answer.reason).toMatch(/^alias llama-3\.3-70b; balanced chose (groq|together)\//);
    });

    it('rejects an unknown strategy with a 400 that names it', async () => {
      await start();
      const viaHeader = await failure(ALIAS, { 'X-Patchbay-Strategy': 'fastest' });
      expect(viaHeader).toMatchObject({ status: 400, param: 'X-Patchbay-Strategy' });
      expect(viaHeader!.message).toContain('"fastest"');
      expect(await failure(`${ALIAS}:cheapest`)).toMatchObject({ status: 400, param: 'model', code: 'invalid_strategy' });
    });

    it('auto picks the fast tier for a short plain prompt and the strong tier for tools, and says why', async () => {
      await start();
      const fast = await chat('auto');
      expect(fast.reason).toMatch(/^auto: fast tier/);
      expect(['openai', 'groq', 'together']).toContain(fast.provider);
      const tools = [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } }];
      const strong = await chat('auto:cost', { body: { tools } });
      expect(strong.reason).toMatch(/^auto: strong tier \(tools\); cost chose /);
      expect(strong.strategy).toBe('cost');
    });
  });

  describe('fallback', () => {
    it.each([
      ['a 500', { status: 500 }],
      ['a 503', { status: 503 }],
      ['a dropped connection', { drop: 'before-headers' as const }],
      ['a 429 whose retry window is too long to wait', { status: 429, retryAfterSeconds: 120 }],
    ])('falls back to the next endpoint on %s, transparently', async (_name, fault) => {
      await start({ routing: { strategy: 'cost' } });
      groq.inject({ path: '/chat/completions', ...fault });
      const answer = await chat(ALIAS);
      expect(answer.provider).toBe('together');
      expect(answer.model).toBe(TOGETHER_MODEL);
      const row = lastRow();
      expect(row).toMatchObject({ status: 200, provider: 'together', model: TOGETHER_MODEL });
      expect((row.attempts as { provider: string }[]).map((a) => a.provider)).toEqual(['groq', 'together']);
    });

    it('falls back on a 429 without a retry window', async () => {
      // Groq always names a retry window on 429; Together (made the cheaper one here) does not.
      await start({ routing: { strategy: 'cost' }, providers: { together: { models: [{ id: TOGETHER_MODEL, inputPrice: 0.01, outputPrice: 0.01 }] } } });
      together.inject({ path: '/chat/completions', status: 429 });
      const answer = await chat(ALIAS);
      expect(answer.provider).toBe('groq');
      expect((lastRow().attempts as { provider: string; status: number }[]).map((a) => `${a.provider}:${a.status}`)).toEqual(['together:429', 'groq:200']);
    });

    it('falls back on a timeout waiting for the first byte', async () => {
      await start({ routing: { strategy: 'cost', firstByteTimeoutMs: 300 } });
      groq.inject({ path: '/chat/completions', delayMs: 1500 });
      expect((await chat(ALIAS)).provider).toBe('together');
      expect(lastRow().attempts).toEqual([expect.objectContaining({ provider: 'groq', error_type: 'timeout' }), expect.objectContaining({ provider: 'together', status: 200 })]);
    });

    it('waits out a short retry window on the same endpoint instead of falling back', async () => {
      await start({ routing: { strategy: 'cost', maxRetryWaitMs: 2000 } });
      groq.inject({ path: '/chat/completions', status: 429, retryAfterSeconds: 1 });
      expect((await chat(ALIAS)).provider).toBe('groq');
      expect((lastRow().attempts as { provider: string; status: number }[]).map((a) => `${a.provider}:${a.status}`)).toEqual(['groq:429', 'groq:200']);
    });

    it('skips an endpoint that announced a long retry window until it ends', async () => {
      await start({ routing: { strategy: 'cost' } });
      groq.inject({ path: '/chat/completions', status: 429, retryAfterSeconds: 120 });
      await chat(ALIAS);
      const before = groq.count('/chat/completions');
      expect((await chat(ALIAS)).provider).toBe('together');
      expect(groq.count('/chat/completions')).toBe(before);
    });

    it('does not fall back on a provider 400: it goes back to the caller, untried elsewhere', async () => {
      await start({ routing: { strategy: 'cost' } });
      const togetherBefore = together.count('/chat/completions');
      groq.inject({ path: '/chat/completions', status: 400, message: 'messages: bad shape' });
      const error = await failure(ALIAS);
      expect(error).toMatchObject({ status: 400 });
      expect(error!.message).toContain('groq: messages: bad shape');
      expect(together.count('/chat/completions')).toBe(togetherBefore);
    });

    it('never crosses providers for a provider-prefixed model', async () => {
      await start();
      const togetherBefore = together.count('/chat/completions');
      groq.inject({ path: '/chat/completions', status: 503 });
      const error = await failure(`groq/${GROQ_MODEL}`);
      expect(error).toMatchObject({ status: 502, code: 'all_providers_failed' });
      expect(together.count('/chat/completions')).toBe(togetherBefore);
    });

    it('tries X-Patchbay-Fallback models after the primary, in the header order', async () => {
      await start();
      openai.inject({ path: '/chat/completions', status: 500 });
      together.inject({ path: '/chat/completions', status: 500 });
      const answer = await chat('openai/gpt-4o', { headers: { 'X-Patchbay-Fallback': `together/${TOGETHER_MODEL}, groq/${GROQ_MODEL}` } });
      expect(answer.provider).toBe('groq');
      expect((lastRow().attempts as { provider: string }[]).map((a) => a.provider)).toEqual(['openai', 'together', 'groq']);
      const unknown = await failure('openai/gpt-4o', { 'X-Patchbay-Fallback': 'nonsense-model' });
      expect(unknown).toMatchObject({ status: 404, code: 'model_not_found' });
    });

    it('answers 502 with every attempt when all endpoints fail', async () => {
      await start({ routing: { strategy: 'cost' } });
      groq.inject({ path: '/chat/completions', status: 500 });
      together.inject({ path: '/chat/completions', status: 503 });
      const error = await failure(ALIAS);
      expect(error).toMatchObject({ status: 502, code: 'all_providers_failed', type: 'server_error' });
      const attempts = (error!.error as { attempts: Record<string, unknown>[] }).attempts;
      expect(attempts).toEqual([
        { provider: 'groq', model: GROQ_MODEL, status: 500, error_type: expect.any(String), message: expect.stringContaining('groq: '), latency_ms: expect.any(Number) },
        { provider: 'together', model: TOGETHER_MODEL, status: 503, error_type: expect.any(String), message: expect.stringContaining('together: '), latency_ms: expect.any(Number) },
      ]);
      expect(lastRow()).toMatchObject({ status: 502, error_type: 'all_providers_failed' });
    });

    it('answers 503 when nothing is eligible, saying why', async () => {
      pb = await startPatchbay({ config: { providers: { groq: { baseUrl: urls.groq }, together: { baseUrl: urls.together, enabled: false } } }, env: {} });
      const error = await failure(ALIAS);
      expect(error).toMatchObject({ status: 503, code: 'no_eligible_provider' });
      expect(error!.message).toContain('groq has no API key');
      expect(error!.message).toContain('together is disabled');
    });

    it('falls back for a stream that fails before its first byte, but not after', async () => {
      await start({ routing: { strategy: 'cost' } });
      groq.inject({ path: '/chat/completions', status: 500 });
      const stream = await pb!.client.chat.completions.create({ model: ALIAS, messages: [{ role: 'user', content: 'a b c' }], stream: true }).withResponse();
      expect(stream.response.headers.get('x-patchbay-provider')).toBe('together');
      let text = '';
      for await (const chunk of stream.data) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe('You said: a b c');

      const togetherBefore = together.count('/chat/completions');
      groq.inject({ path: '/chat/completions', midStream: { afterEvents: 3, kind: 'drop' } });
      const broken = await pb!.client.chat.completions.create({ model: ALIAS, messages: [{ role: 'user', content: 'a b c d e f g' }], stream: true });
      let partial = '';
      const error = await (async () => {
        for await (const chunk of broken) partial += chunk.choices[0]?.delta.content ?? '';
      })().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(partial.length).toBeGreaterThan(0);
      expect(together.count('/chat/completions')).toBe(togetherBefore);
      expect(lastRow()).toMatchObject({ status: 502, provider: 'groq', stream: 1 });
    });

    it("a stream's first chunk counts for its endpoint's health and its session's sticky endpoint, and a failure after it undoes both", async () => {
      // A stream's head and first chunk are written before this bookkeeping (execute-route.ts onAnswer):
      // what the client is told (the route reason) and what routing remembers must be the same as before.
      await start({ routing: { strategy: 'cost' } });
      const session = { 'x-patchbay-session': 'stream-bookkeeping' };
      const stream = async (content: string) => {
        const { data, response } = await pb!.client.chat.completions.create({ model: ALIAS, messages: [{ role: 'user', content }], stream: true }, { headers: session }).withResponse();
        let text = '';
        const error = await (async () => {
          for await (const chunk of data) text += chunk.choices[0]?.delta.content ?? '';
        })().then(
          () => null,
          (e: unknown) => e,
        );
        return { provider: response.headers.get('x-patchbay-provider'), reason: response.headers.get('x-patchbay-route-reason') ?? '', text, error };
      };
      const health = async (id: string) => {
        const response = await fetch(`${pb!.patchbay.url}/api/status`, { headers: { authorization: `Bearer ${pb!.patchbay.adminToken}` } });
        return ((await response.json()) as { endpoints: Record<string, { samples: number; successes: number }> }).endpoints[id];
      };
      const togetherId = `together/${TOGETHER_MODEL}`;

      // groq (the cheaper) fails before its first byte: together serves, and the head already says so.
      groq.inject({ path: '/chat/completions', status: 500 });
      const first = await stream('a b c');
      expect(first).toMatchObject({ provider: 'together', text: 'You said: a b c', error: null });
      expect(first.reason).toContain(`groq/${GROQ_MODEL} failed (500`);
      expect(first.reason).toContain(`fallback ${togetherId} served it`);
      expect(lastRow()).toMatchObject({ status: 200, provider: 'together', stream: 1, fallback: 1 });

      // The session stays on together, which answered it, though groq answers again and costs less.
      const second = await stream('d e f');
      expect(second).toMatchObject({ provider: 'together', text: 'You said: d e f', error: null });
      expect(second.reason).toContain(`sticky: ${togetherId} answered this session 1 time(s) in a row`);
      expect(await health(togetherId)).toMatchObject({ samples: 2, successes: 2 });

      // together fails after its first chunk: the client has an error inside its stream, the row says
      // so, together's health counts the failure and the session is free to go where cost sends it.
      together.inject({ path: '/chat/completions', midStream: { afterEvents: 2, kind: 'drop' } });
      const third = await stream('g h i j k l');
      expect(third.provider).toBe('together');
      expect(third.text.length).toBeGreaterThan(0);
      expect(third.error).toBeInstanceOf(Error);
      expect(lastRow()).toMatchObject({ status: 502, provider: 'together', stream: 1 });
      expect(await health(togetherId)).toMatchObject({ samples: 4, successes: 3 });
      const fourth = await stream('m n o');
      expect(fourth).toMatchObject({ provider: 'groq', text: 'You said: m n o', error: null });
      expect(fourth.reason).not.toContain('sticky:');
    });

    it('drops endpoints whose context window cannot hold the prompt, with a 400 when none can', async () => {
      await start({ routing: { strategy: 'cost' }, providers: { groq: { models: [{ id: GROQ_MODEL, contextWindow: 40 }] } } });
      const long = 'word '.repeat(60);
      const answer = await chat(ALIAS, { body: { messages: [{ role: 'user', content: long }] } });
      expect(answer.provider).toBe('together');
      const tooLong = await pb!.client.chat.completions.create({ model: `groq/${GROQ_MODEL}`, messages: [{ role: 'user', content: long }] }).catch((e: unknown) => e);
      expect(tooLong).toMatchObject({ status: 400, code: 'context_length_exceeded', param: 'messages' });
    });
  });

  describe('circuit breaker', () => {
    it('opens after repeated failures, skips the endpoint, then probes once after the cool-down and closes', async () => {
      // The breaker reads the test's clock: a minute of cool-down that no slow machine can live through
      // between two steps below, passed at once by moving the clock on.
      let ahead = 0;
      await start({ routing: { breaker: { failureThreshold: 2, cooldownMs: 60_000 } }, healthClock: () => Date.now() + ahead });
      const pinned = `groq/${GROQ_MODEL}`;
      groq.inject({ path: '/chat/completions', status: 500, times: 2 });
      await failure(pinned);
      await failure(pinned);
      const status = async () => {
        const response = await fetch(`${pb!.patchbay.url}/api/status`, { headers: { authorization: `Bearer ${pb!.patchbay.adminToken}` } });
        return ((await response.json()) as { endpoints: Record<string, { breaker: string }> }).endpoints[pinned];
      };
      expect((await status()).breaker).toBe('open');
      const before = groq.count('/chat/completions');
      const open = await failure(pinned);
      expect(open).toMatchObject({ status: 503, code: 'no_eligible_provider' });
      expect(open!.message).toContain('circuit breaker open');
      expect(groq.count('/chat/completions')).toBe(before);
      // The alias keeps working through the other endpoint meanwhile.
      expect((await chat(ALIAS)).provider).toBe('together');

      // Still open just before the cool-down ends, half-open once it has.
      ahead = 30_000;
      expect((await status()).breaker).toBe('open');
      ahead = 60_000;
      expect((await status()).breaker).toBe('half-open');
      expect((await chat(pinned)).provider).toBe('groq');
      expect((await status()).breaker).toBe('closed');
    });

    it('keeps health across restarts', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-health-'));
      const config = { providers: { groq: { baseUrl: urls.groq }, together: { baseUrl: urls.together } } };
      pb = await startPatchbay({ dataDir, config, env: KEYS });
      groq.latencyMs = 30;
      for (let i = 0; i < 4; i++) await chat(`${ALIAS}:round-robin`);
      await pb.stop();
      const again = await startPatchbay({ dataDir, config, env: KEYS });
      pb = again;
      onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
      const health = again.patchbay.health.health(`groq/${GROQ_MODEL}`);
      expect(health.samples).toBe(2);
      expect(health.latencyP50).toBeGreaterThanOrEqual(30);
    });
  });
});
