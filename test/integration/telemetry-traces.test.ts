import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { TogetherEmulator } from '../emulators/together-emulator.ts';
import { OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

const KEYS = { GROQ_API_KEY: 'gsk-test-otel-groq', TOGETHER_API_KEY: 'tg-test-otel-together' };
const ALIAS = 'llama-3.3-70b';
const GROQ_MODEL = 'llama-3.3-70b-versatile';
const TOGETHER_MODEL = 'meta-llama/Llama-3.3-70B-Instruct-Turbo';
const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

describe('OpenTelemetry traces over OTLP: a span per request, a child per attempt, the trace context continued', () => {
  const groq = new GroqEmulator({ apiKey: KEYS.GROQ_API_KEY });
  const together = new TogetherEmulator({ apiKey: KEYS.TOGETHER_API_KEY });
  const receiver = new OtlpReceiver();
  const urls = { groq: '', together: '', collector: '' };
  let pb: TestPatchbay | undefined;

  beforeAll(async () => {
    urls.groq = `${await groq.start()}/openai/v1`;
    urls.together = `${await together.start()}/v1`;
    urls.collector = await receiver.start();
  });
  afterEach(async () => {
    await pb?.stop();
    pb = undefined;
    receiver.clear();
    groq.clearFaults();
    together.clearFaults();
  });
  afterAll(async () => {
    await Promise.all([groq.close(), together.close(), receiver.close()]);
  });

  const start = async (otlp: Record<string, unknown> = {}, env: Record<string, string> = {}) => {
    const providers = { groq: { baseUrl: urls.groq }, together: { baseUrl: urls.together } };
    pb = await startPatchbay({ config: { providers, routing: { strategy: 'cost' }, telemetry: { otlp: { endpoint: urls.collector, metrics: false, ...otlp } } }, env: { ...KEYS, ...env } });
    return pb;
  };
  /** The spans of the trace of the request that answered with this id, once Patchbay has sent them. */
  const traceOf = async (requestId: string): Promise<{ root: ReceivedSpan; attempts: ReceivedSpan[] }> => {
    // A request's span ends once its usage row is built, which may be just after the client read the
    // answer's last byte; its attempts end before it, so they are sent with it or earlier.
    let root: ReceivedSpan | undefined;
    for (let tries = 0; !root && tries < 100; tries++) {
      if (tries) await new Promise((resolve) => setTimeout(resolve, 20));
      await pb!.patchbay.telemetry.flush();
      root = receiver.spans.find((s) => s.attributes['patchbay.request.id'] === requestId);
    }
    expect(root, `a span for ${requestId}`).toBeDefined();
    const attempts = receiver.spans.filter((s) => s.parentSpanId === root!.spanId).sort((a, b) => a.startTimeUnixNano - b.startTimeUnixNano);
    return { root: root!, attempts };
  };
  const lastTraceparent = (emulator: GroqEmulator | TogetherEmulator) => emulator.requests.at(-1)!.headers.traceparent as string | undefined;

  it('a plain request: one server span named "{operation} {model}" with the GenAI attributes, one client span for its attempt, and its traceparent sent upstream', async () => {
    await start();
    const { data, response } = await pb!.client.chat.completions
      .create({ model: ALIAS, messages: [{ role: 'user', content: 'trace me' }], max_tokens: 40, temperature: 0.3, top_p: 0.9, stop: ['END'], seed: 7 })
      .withResponse();
    const { root, attempts } = await traceOf(response.headers.get('x-patchbay-request-id')!);
    expect(root).toMatchObject({ name: `chat ${ALIAS}`, kind: SERVER, parentSpanId: null, status: { code: 0 } });
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'groq',
      'gen_ai.request.model': ALIAS,
      'gen_ai.response.model': GROQ_MODEL,
      'gen_ai.request.max_tokens': 40,
      'gen_ai.request.temperature': 0.3,
      'gen_ai.request.top_p': 0.9,
      'gen_ai.request.seed': 7,
      'gen_ai.request.stop_sequences': ['END'],
      'gen_ai.request.stream': false,
      'gen_ai.usage.input_tokens': data.usage!.prompt_tokens,
      'gen_ai.usage.output_tokens': data.usage!.completion_tokens,
      'patchbay.strategy': 'cost',
      'patchbay.fallback': false,
      'patchbay.attempts': 1,
      'patchbay.key.id': expect.any(String),
      'patchbay.cost_usd': expect.any(Number),
    });
    expect(root.attributes['patchbay.route.reason']).toContain('cost chose groq/');
    expect(root.resource).toMatchObject({ 'service.name': 'patchbay', 'service.version': expect.any(String) });
    expect(root.scope.name).toBe('patchbay');
    expect(receiver.contentTypes).toEqual(expect.arrayContaining(['application/x-protobuf']));
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ name: `chat ${GROQ_MODEL}`, kind: CLIENT, traceId: root.traceId });
    expect(attempts[0].attributes).toMatchObject({ 'gen_ai.provider.name': 'groq', 'gen_ai.request.model': GROQ_MODEL, 'server.address': '127.0.0.1', 'patchbay.attempt.status': 200 });
    // The upstream saw this attempt's context: a provider that traces continues Patchbay's trace.
    expect(lastTraceparent(groq)).toBe(`00-${root.traceId}-${attempts[0].spanId}-01`);
    // Nothing of the content by default, and never a credential.
    const exported = JSON.stringify(receiver.spans);
    expect(exported).not.toContain('trace me');
    expect(exported).not.toContain(KEYS.GROQ_API_KEY);
    expect(exported).not.toContain(pb!.key);
  });

  it('a stream: time to first chunk and its usage on the request span and the answering attempt', async () => {
    await start();
    const stream = await pb!.client.chat.completions.create({ model: ALIAS, messages: [{ role: 'user', content: 'stream me' }], stream: true, stream_options: { include_usage: true } }).withResponse();
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream.data) usage = chunk.usage ?? usage;
    const { root, attempts } = await traceOf(stream.response.headers.get('x-patchbay-request-id')!);
    expect(root.attributes).toMatchObject({ 'gen_ai.request.stream': true, 'gen_ai.usage.input_tokens': usage!.prompt_tokens, 'gen_ai.usage.output_tokens': usage!.completion_tokens });
    const firstChunk = root.attributes['gen_ai.response.time_to_first_chunk'] as number;
    expect(firstChunk).toBeGreaterThan(0);
    expect(firstChunk).toBeCloseTo(Number(stream.response.headers.get('x-patchbay-latency-ms')) / 1000, 3);
    expect(attempts).toHaveLength(1);
    expect(attempts[0].attributes).toMatchObject({ 'gen_ai.usage.output_tokens': usage!.completion_tokens, 'gen_ai.response.time_to_first_chunk': firstChunk });
    // The answering attempt lasts as long as its stream, not just to the first chunk.
    expect(attempts[0].endTimeUnixNano).toBeGreaterThanOrEqual(attempts[0].startTimeUnixNano);
    // (The SDK anchors each span's clock to Date.now() when it starts: two spans' times can differ by a millisecond or two.)
    expect(root.endTimeUnixNano + 5e6).toBeGreaterThanOrEqual(attempts[0].endTimeUnixNano);
  });

  it('a fallback: two attempt spans under one request, the failed one with error.type, each with its own traceparent upstream', async () => {
    await start();
    groq.inject({ path: '/chat/completions', status: 500 });
    const { response } = await pb!.client.chat.completions.create({ model: ALIAS, messages: [{ role: 'user', content: 'fall back' }] }).withResponse();
    expect(response.headers.get('x-patchbay-provider')).toBe('together');
    const { root, attempts } = await traceOf(response.headers.get('x-patchbay-request-id')!);
    expect(root.attributes).toMatchObject({ 'patchbay.fallback': true, 'patchbay.attempts': 2, 'gen_ai.provider.name': 'together', 'gen_ai.response.model': TOGETHER_MODEL });
    expect(root.status.code).toBe(0);
    expect(attempts.map((a) => a.name)).toEqual([`chat ${GROQ_MODEL}`, `chat ${TOGETHER_MODEL}`]);
    expect(attempts[0]).toMatchObject({ status: { code: ERROR } });
    expect(attempts[0].attributes).toMatchObject({ 'gen_ai.provider.name': 'groq', 'patchbay.attempt.status': 500, 'error.type': expect.any(String) });
    expect(attempts[1].status.code).toBe(0);
    expect(attempts[1].attributes['error.type']).toBeUndefined();
    expect(lastTraceparent(groq)).toBe(`00-${root.traceId}-${attempts[0].spanId}-01`);
    expect(lastTraceparent(together)).toBe(`00-${root.traceId}-${attempts[1].spanId}-01`);
  });

  it('a failure: the request span has error.type and an error status, every attempt its own', async () => {
    await start();
    groq.inject({ path: '/chat/completions', status: 500 });
    together.inject({ path: '/chat/completions', status: 503 });
    const error = (await pb!.client.chat.completions.create({ model: ALIAS, messages: [{ role: 'user', content: 'fail' }] }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(502);
    const { root, attempts } = await traceOf(error.headers!.get('x-patchbay-request-id')!);
    expect(root).toMatchObject({ name: `chat ${ALIAS}`, status: { code: ERROR } });
    expect(root.status.message).toContain('provider attempt(s) failed');
    expect(root.attributes).toMatchObject({ 'error.type': 'all_providers_failed', 'patchbay.status': 502, 'patchbay.attempts': 2 });
    expect(attempts.map((a) => [a.attributes['patchbay.attempt.status'], a.status.code])).toEqual([
      [500, ERROR],
      [503, ERROR],
    ]);
  });

  it("a capped refusal: the key's cap answers 429 with no attempt, and the span says so", async () => {
    await start();
    const { secret, key } = await pb!.patchbay.management.createKey({ name: 'capped', monthly_token_cap: 5 });
    const client = new OpenAI({ baseURL: `${pb!.patchbay.url}/v1`, apiKey: secret, maxRetries: 0 });
    const error = (await client.chat.completions.create({ model: ALIAS, messages: [{ role: 'user', content: 'too much' }], max_tokens: 50 }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toMatchObject({ status: 429, code: 'insufficient_quota' });
    const { root, attempts } = await traceOf(error.headers!.get('x-patchbay-request-id')!);
    expect(root).toMatchObject({ name: `chat ${ALIAS}`, status: { code: ERROR } });
    expect(root.attributes).toMatchObject({ 'error.type': 'insufficient_quota', 'patchbay.key.id': key.id, 'patchbay.status': 429, 'patchbay.attempts': 0 });
    expect(attempts).toEqual([]);
  });

  it("a request with a traceparent continues the client's trace: Patchbay's span is its child, and the upstream gets the same trace id", async () => {
    await start();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    const { response } = await pb!.client.chat.completions
      .create({ model: ALIAS, messages: [{ role: 'user', content: 'continue' }] }, { headers: { traceparent: `00-${traceId}-${parent}-01`, 'X-Patchbay-Session': 'session-42' } })
      .withResponse();
    const { root, attempts } = await traceOf(response.headers.get('x-patchbay-request-id')!);
    expect(root).toMatchObject({ traceId, parentSpanId: parent });
    expect(root.attributes['gen_ai.conversation.id']).toBe('session-42');
    expect(attempts[0].traceId).toBe(traceId);
    expect(lastTraceparent(groq)).toBe(`00-${traceId}-${attempts[0].spanId}-01`);
  });

  it('exports as OTLP/JSON when asked, from the standard OTEL_* variables, with the service name and resource attributes they give', async () => {
    pb = await startPatchbay({
      config: { providers: { groq: { baseUrl: urls.groq } } },
      env: { ...KEYS, OTEL_EXPORTER_OTLP_ENDPOINT: urls.collector, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'gateway-eu', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging,team=ml%20platform', OTEL_METRICS_EXPORTER: 'none' },
    });
    const { response } = await pb.client.chat.completions.create({ model: `groq/${GROQ_MODEL}`, messages: [{ role: 'user', content: 'json please' }] }).withResponse();
    const { root } = await traceOf(response.headers.get('x-patchbay-request-id')!);
    expect(receiver.contentTypes).toContain('application/json');
    expect(receiver.contentTypes).not.toContain('application/x-protobuf');
    expect(root.resource).toMatchObject({ 'service.name': 'gateway-eu', 'deployment.environment.name': 'staging', team: 'ml platform' });
    expect(root.attributes['gen_ai.response.model']).toBe(GROQ_MODEL);
    expect(pb.patchbay.telemetry.status()).toMatchObject({ otlp: { endpoint: urls.collector, protocol: 'http/json', source: 'environment' } });
  });

  it('metrics go over OTLP too: the GenAI client metrics and Patchbay\'s counters, by provider, model and key', async () => {
    await start({ metrics: true, traces: true });
    await pb!.client.chat.completions.create({ model: ALIAS, messages: [{ role: 'user', content: 'measure me' }] });
    groq.inject({ path: '/chat/completions', status: 500 });
    const { response } = await pb!.client.chat.completions.create({ model: ALIAS, messages: [{ role: 'user', content: 'measure me' }] }).withResponse();
    await traceOf(response.headers.get('x-patchbay-request-id')!); // the request is recorded (its span sent)
    await pb!.patchbay.telemetry.flush();
    const metric = (name: string) => receiver.metrics.filter((m) => m.name === name).at(-1);
    expect(metric('gen_ai.client.token.usage')).toMatchObject({ unit: '{token}' });
    expect(metric('gen_ai.client.token.usage')!.points.map((p) => p.attributes['gen_ai.token.type']).sort()).toEqual(['input', 'input', 'output', 'output']);
    expect(metric('gen_ai.client.operation.duration')).toMatchObject({ unit: 's' });
    const requests = metric('patchbay.requests')!.points;
    expect(requests.map((p) => [p.attributes['gen_ai.provider.name'], p.value]).sort()).toEqual([
      ['groq', 1],
      ['together', 1],
    ]);
    expect(requests[0].attributes).toMatchObject({ 'gen_ai.request.model': ALIAS, 'patchbay.key.id': expect.stringMatching(/^key_/) });
    expect(metric('patchbay.fallbacks')!.points).toEqual([expect.objectContaining({ value: 1 })]);
  });

  it('the dashboard turns export on and off through PUT /api/telemetry: saved in the config file, in force at once, its status shown', async () => {
    pb = await startPatchbay({ config: { providers: { groq: { baseUrl: urls.groq } } }, env: KEYS });
    const api = (method: string, body?: unknown) =>
      fetch(`${pb!.patchbay.url}/api/telemetry`, { method, headers: { authorization: `Bearer ${pb!.patchbay.adminToken}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const ask = () => pb!.client.chat.completions.create({ model: `groq/${GROQ_MODEL}`, messages: [{ role: 'user', content: 'switch' }] }).withResponse();
    expect(await (await api('GET')).json()).toMatchObject({ otlp: null, prometheus: null, semconvVersion: '1.45.0' });
    expect(pb.patchbay.telemetry.active).toBeNull();

    const missing = await api('PUT', { enabled: true });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { param: 'endpoint' } });
    const bad = await api('PUT', { enabled: true, endpoint: 'ftp://collector' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { param: 'endpoint' } });

    const turnedOn = await api('PUT', { enabled: true, endpoint: urls.collector });
    expect(turnedOn.status).toBe(200);
    expect(await turnedOn.json()).toMatchObject({ otlp: { endpoint: urls.collector, protocol: 'http/protobuf', source: 'config' } });
    const { response } = await ask();
    await traceOf(response.headers.get('x-patchbay-request-id')!);
    expect(JSON.parse(readFileSync(join(pb.dataDir, 'config.json'), 'utf8')).telemetry).toEqual({ otlp: { enabled: true, endpoint: urls.collector } });
    expect(((await (await api('GET')).json()) as { lastExport: unknown }).lastExport).toMatchObject({ lastSuccessAt: expect.any(Number), lastError: null });

    expect((await api('PUT', { enabled: false })).status).toBe(200);
    expect(pb.patchbay.telemetry.active).toBeNull();
    receiver.clear();
    await ask();
    await pb.patchbay.telemetry.flush();
    expect(receiver.spans).toEqual([]);
  });

  it('prompt and answer content go on the span only when captureContent is on, redacted', async () => {
    pb = await startPatchbay({ config: { providers: { groq: { baseUrl: urls.groq } }, telemetry: { captureContent: true, otlp: { endpoint: urls.collector, metrics: false } } }, env: KEYS });
    const { response } = await pb.client.chat.completions.create({ model: `groq/${GROQ_MODEL}`, messages: [{ role: 'user', content: `my key is ${KEYS.GROQ_API_KEY} ok` }] }).withResponse();
    const { root } = await traceOf(response.headers.get('x-patchbay-request-id')!);
    expect(root.attributes['gen_ai.input.messages']).toContain('my key is');
    expect(root.attributes['gen_ai.input.messages']).not.toContain(KEYS.GROQ_API_KEY);
    expect(root.attributes['gen_ai.output.messages']).toEqual(expect.any(String));
    // The spans' content is not the content log: that stays off until usage.contentLog turns it on.
    pb.patchbay.usage.flush();
    expect(pb.patchbay.db.prepare('SELECT count(*) AS n FROM content_log').get()).toEqual({ n: 0 });
  });
});
