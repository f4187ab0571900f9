import { connect } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

const UPSTREAM_KEY = 'sk-test-live-events-upstream';

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** A dashboard tab reading GET /api/events: collects every event, and can wait for one. */
async function openEvents(pb: TestPatchbay) {
  const controller = new AbortController();
  const response = await fetch(`${pb.patchbay.url}/api/events`, { headers: { authorization: `Bearer ${pb.patchbay.adminToken}` }, signal: controller.signal });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const events: SseEvent[] = [];
  const waiters: { test: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void }[] = [];
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
          if (!name || data === undefined) continue;
          const event = { event: name, data: JSON.parse(data) as Record<string, unknown> };
          events.push(event);
          for (const waiter of waiters.splice(0)) {
            if (waiter.test(event)) waiter.resolve(event);
            else waiters.push(waiter);
          }
        }
      }
    } catch {
      // Aborted by the test.
    }
  })();
  // A generous wait for an event that should come (the machine is shared); how soon it comes is printed, not asserted.
  const waitFor = (test: (e: SseEvent) => boolean, ms = 60_000) =>
    new Promise<SseEvent>((resolve, reject) => {
      const found = events.find(test);
      if (found) return resolve(found);
      const timer = setTimeout(() => reject(new Error(`no matching event within ${ms} ms; got ${events.map((e) => e.event).join(', ')}`)), ms);
      waiters.push({ test, resolve: (e) => (clearTimeout(timer), resolve(e)) });
    });
  return { events, waitFor, close: () => controller.abort() };
}

describe('live events on GET /api/events (SSE)', () => {
  const emulator = new OpenAiEmulator({ apiKey: UPSTREAM_KEY });
  let pb: TestPatchbay;
  const clientFor = (key: string) => new OpenAI({ baseURL: `${pb.patchbay.url}/v1`, apiKey: key, maxRetries: 0 });

  beforeAll(async () => {
    const upstream = await emulator.start();
    pb = await startPatchbay({
      config: { providers: { openai: { baseUrl: `${upstream}/v1` } }, routing: { breaker: { failureThreshold: 3 } } },
      env: { OPENAI_API_KEY: UPSTREAM_KEY },
    });
  });
  afterAll(async () => {
    await pb?.stop();
    await emulator.close();
  });

  it('sends a request event, with the route reason, after a real request', async () => {
    const stream = await openEvents(pb);
    const started = Date.now();
    const { response } = await pb.client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }).withResponse();
    const requestId = response.headers.get('x-patchbay-request-id');
    const event = await stream.waitFor((e) => e.event === 'request' && e.data.request_id === requestId);
    console.log(`[live-events] the request event came ${Date.now() - started} ms after the request was sent`);
    expect(event.data).toMatchObject({ status: 200, provider: 'openai', key_name: 'default', endpoint: 'chat' });
    expect(event.data.route_reason).toBe(response.headers.get('x-patchbay-route-reason'));
    expect(event.data.total_tokens).toBeGreaterThan(0);
    stream.close();
  });

  it('sends breaker events when an endpoint fails often enough to open its breaker', async () => {
    const stream = await openEvents(pb);
    emulator.inject({ status: 500, times: 3 });
    for (let i = 0; i < 3; i++) await pb.client.chat.completions.create({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).catch(() => undefined);
    const event = await stream.waitFor((e) => e.event === 'breaker');
    expect(event.data).toMatchObject({ endpoint: 'openai/gpt-4o-mini', provider: 'openai', state: 'open' });
    stream.close();
    emulator.clearFaults();
  });

  it('sends key_cap exactly once at 80 % and once at 100 % of a token cap', async () => {
    const stream = await openEvents(pb);
    const { key, secret } = await pb.patchbay.management.createKey({ name: 'capped', monthly_token_cap: 300 });
    const client = clientFor(secret);
    let refused = 0;
    for (let i = 0; i < 40 && refused < 3; i++) {
      await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'one two three' }], max_tokens: 10 }).catch(() => refused++);
    }
    expect(refused).toBe(3);
    await stream.waitFor((e) => e.event === 'key_cap' && e.data.threshold === 100);
    // Events reach a stream in order: once a marker sent now has arrived, so has anything sent before it.
    pb.patchbay.events.emit('routing', { n: -100 });
    await stream.waitFor((e) => e.event === 'routing' && e.data.n === -100);
    const caps = stream.events.filter((e) => e.event === 'key_cap' && e.data.key_id === key.id).map((e) => e.data);
    expect(caps.map((c) => `${c.cap} ${c.threshold}`)).toEqual(['tokens 80', 'tokens 100']);
    expect(caps[0]).toMatchObject({ key_name: 'capped', limit: 300, month: new Date().toISOString().slice(0, 7) });
    expect(caps[0].used as number).toBeGreaterThanOrEqual(240);
    stream.close();
  });

  it('drops a client that never reads once its buffer passes the limit, and keeps no subscription for it', async () => {
    // The earlier tests' streams are gone once the server has seen their sockets close.
    for (let i = 0; i < 100 && pb.patchbay.events.subscriberCount > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const before = pb.patchbay.events.subscriberCount;
    expect(before).toBe(0);
    const reader = await openEvents(pb);
    // A dashboard tab that stopped reading: the request goes out, nothing is ever read.
    const stalled = connect(pb.patchbay.port, '127.0.0.1');
    await new Promise((resolve) => stalled.once('connect', resolve));
    stalled.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${pb.patchbay.port}\r\nAuthorization: Bearer ${pb.patchbay.adminToken}\r\n\r\n`);
    stalled.pause();
    const closed = new Promise((resolve) => stalled.once('close', resolve));
    stalled.on('error', () => undefined);
    for (let i = 0; i < 100 && pb.patchbay.events.subscriberCount < before + 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(pb.patchbay.events.subscriberCount).toBe(before + 2);
    const payload = 'x'.repeat(10_000);
    // 30 MB in all, more than the kernel's socket buffers and the 1 MB limit, at a pace a reading client keeps up with.
    for (let i = 0; i < 3000 && pb.patchbay.events.subscriberCount > before + 1; i += 10) {
      for (let j = 0; j < 10; j++) pb.patchbay.events.emit('routing', { n: i + j, payload });
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(pb.patchbay.events.subscriberCount).toBe(before + 1);
    stalled.resume();
    await closed;
    // The tab that reads is still subscribed.
    pb.patchbay.events.emit('routing', { n: -1 });
    await reader.waitFor((e) => e.event === 'routing' && e.data.n === -1);
    reader.close();
    for (let i = 0; i < 100 && pb.patchbay.events.subscriberCount > before; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(pb.patchbay.events.subscriberCount).toBe(before);
  });

  it('an open event stream does not hold up shutdown (the grace is for requests)', async () => {
    // A grace of ten minutes: were the stream waited for like a request, stop() would take that long.
    const other = await startPatchbay({ env: {}, shutdownGraceMs: 600_000 });
    const stream = await openEvents(other);
    const stopped = await Promise.race([other.stop().then(() => 'stopped'), new Promise((resolve) => setTimeout(resolve, 120_000, 'still waiting after 2 minutes')).then((s) => s)]);
    expect(stopped).toBe('stopped');
    stream.close();
  });
});
