import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicEmulator } from '../emulators/anthropic-emulator.ts';
import { GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

const KEYS = { OPENAI_API_KEY: 'sk-test-fuzz-openai', LOCAL_API_KEY: 'sk-test-fuzz-local', GEMINI_API_KEY: 'gm-test-fuzz-gemini', ANTHROPIC_API_KEY: 'sk-ant-test-fuzz' };
const RUNS = 150;
// How long the event loop stalls on these bodies is a performance figure: `node bench/event-loop-lag.ts`
// measures it (bench/README.md). Here: the answers, and the server still serving after each property.

/** Models the emulators serve, so that a valid request succeeds. */
const MODELS = ['local/模', 'openai/gpt-4o-mini', 'gpt-4o', 'anthropic/claude-haiku-4-5-20251001', 'google/gemini-2.5-flash', 'claude-haiku-4-5', 'auto'];

/** Values a careless or hostile client might put anywhere. */
const nasty = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.string({ unit: fc.constantFrom('\u0000', '\r', '\n', '\u007f', '\u2028', '\ud800', '模', 'é', '%', '"', '\\'), maxLength: 32 }),
  // Huge text of ordinary words. (A long run of one character is left out on purpose: the
  // tokenizer behind exact context checks is quadratic on it, ~10 s for 100k 'x', reported separately.)
  fc.integer({ min: 1, max: 200_000 }).map((n) => 'lorem ipsum dolor sit amet, '.repeat(Math.ceil(n / 28)).slice(0, n)),
  fc.integer({ min: 1, max: 1_000 }).map((depth) => JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown),
  // Pass-through model ids on a user-defined provider: odd unicode and control characters reach the route-reason header.
  fc.string({ unit: fc.constantFrom('模', 'é', '\r', '\n', '\u0000', 'a', '/', ':'), minLength: 1, maxLength: 12 }).map((id) => `local/${id}`),
  fc.constantFrom(-1, 0, 1e308, -1e308, 2 ** 53 + 1, 0.5, 129, 10_000, true, null, [], {}, '', 'auto', '#/%', { $ref: '#/%' }),
);

/** A value with one key replaced by a nasty value, or removed; one level into objects and arrays too. */
function mutate(base: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(base);
  return fc.tuple(fc.constantFrom(...keys), fc.option(fc.string({ maxLength: 8 }), { nil: undefined }), nasty, fc.boolean()).map(([key, inner, value, remove]) => {
    const copy: Record<string, unknown> = structuredClone(base);
    const target = copy[key];
    if (inner !== undefined && target !== null && typeof target === 'object') {
      const holder = (Array.isArray(target) ? target[0] : target) as Record<string, unknown> | undefined;
      if (holder && typeof holder === 'object') {
        const innerKeys = Object.keys(holder);
        const innerKey = innerKeys.length > 0 && inner.length % 2 === 0 ? innerKeys[inner.length % innerKeys.length] : inner;
        if (remove) delete holder[innerKey];
        else holder[innerKey] = value;
        return copy;
      }
    }
    if (remove) delete copy[key];
    else copy[key] = value;
    return copy;
  });
}

/** What an HTTP client can send in a header: Latin-1 without control characters, no surrounding spaces. */
const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c === 0x7f ? 0x7e : c)), maxLength: 40 }).map((text) => text.trim());
const routingHeaders = fc.record(
  {
    'x-patchbay-fallback': fc.oneof(headerText, fc.array(fc.oneof(fc.constantFrom(...MODELS.filter((m) => /^[\x20-\xff]*$/.test(m))), headerText), { maxLength: 8 }).map((list) => list.join(','))),
    'x-patchbay-strategy': fc.oneof(headerText, fc.constantFrom('cost', 'latency', 'availability', 'round-robin', 'balanced', 'COST', ' cost ')),
  },
  { requiredKeys: [] },
);

const tool = (parameters: unknown) => ({ type: 'function', function: { name: 'lookup', description: 'Look up', parameters } });
const schema = { type: 'object', properties: { q: { $ref: '#/$defs/Q' }, n: { type: ['integer', 'null'] } }, required: ['q'], $defs: { Q: { type: 'string' } } };
/** Tool schemas Gemini must inline: broken and exploding $ref among them. */
const toolSchemas = fc.oneof(
  fc.constant(schema),
  fc.constantFrom('#/%', '#/$defs/Nope', 'https://example.com/s.json', '#/%E0%A4%A', '#', '#/properties').map((ref) => ({ ...schema, properties: { q: { $ref: ref } } })),
  fc.integer({ min: 1, max: 24 }).map((levels) => {
    const defs: Record<string, unknown> = { [`L${levels}`]: { type: 'string' } };
    for (let i = 0; i < levels; i++) defs[`L${i}`] = { type: 'object', properties: { a: { $ref: `#/$defs/L${i + 1}` }, b: { $ref: `#/$defs/L${i + 1}` } } };
    return { type: 'object', properties: { root: { $ref: '#/$defs/L0' } }, $defs: defs };
  }),
);
const chatBase = (model: string) => ({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 16, tools: [tool(schema)], temperature: 0.5, n: 1, stream: false });
const completionBase = (model: string) => ({ model, prompt: ['one', 'two'], max_tokens: 8, n: 1, stream: false, echo: false });
const embeddingBase = { model: 'text-embedding-3-small', input: ['one', 'two'], encoding_format: 'float' };

/** A body as a client sends it: valid, one field broken, arbitrary JSON, or not JSON at all. */
function bodies(valid: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<string> {
  return fc.oneof(
    // Nesting far deeper than any serialiser's stack, written as text (JSON.stringify could not build it).
    { weight: 1, arbitrary: fc.tuple(valid, fc.integer({ min: 60, max: 20_000 })).map(([body, depth]) => JSON.stringify({ ...body, metadata: '__DEEP__' }).replace('"__DEEP__"', '['.repeat(depth) + ']'.repeat(depth))) },
    { weight: 2, arbitrary: valid.map((body) => JSON.stringify(body)) },
    { weight: 5, arbitrary: valid.chain(mutate).map((body) => JSON.stringify(body)) },
    { weight: 2, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
  );
}

describe('fuzzing every /v1 and /api body: always a 2xx or a 4xx in the error shape, never a 500 or a crash', () => {
  const openai = new OpenAiEmulator({ apiKey: KEYS.OPENAI_API_KEY });
  const gemini = new GeminiEmulator({ apiKey: KEYS.GEMINI_API_KEY });
  const anthropic = new AnthropicEmulator({ apiKey: KEYS.ANTHROPIC_API_KEY });
  /** A user's own server that serves any model id it is asked for, as Ollama would pull it. */
  const local = new OpenAiEmulator({ apiKey: KEYS.LOCAL_API_KEY, chatModels: ['模', '模模', 'é', 'a', 'aa', 'a/a'] });
  let pb: TestPatchbay;
  let targetKeyId: string;

  beforeAll(async () => {
    pb = await startPatchbay({
      config: {
        providers: {
          openai: { baseUrl: `${await openai.start()}/v1` },
          google: { baseUrl: `${await gemini.start()}/v1beta` },
          anthropic: { baseUrl: `${await anthropic.start()}/v1` },
          local: { baseUrl: `${await local.start()}/v1`, apiKeyEnv: 'LOCAL_API_KEY' },
        },
      },
      env: KEYS,
    });
    // /api/keys/:id is fuzzed on a key of its own, so the fuzzing client's key keeps working.
    targetKeyId = pb.patchbay.keys.create({ name: 'fuzz-target' }).record.id;
    // What loads once, on first use (the tokenizer, the Express app for /api), is loaded first.
    for (const model of MODELS) await request('POST', '/v1/chat/completions', JSON.stringify(chatBase(model)), {}, false);
    await request('POST', '/v1/completions', JSON.stringify(completionBase(MODELS[0])), {}, false);
    await request('POST', '/v1/embeddings', JSON.stringify(embeddingBase), {}, false);
    await request('PUT', '/api/routing', '{}', {}, true);
  });
  afterAll(async () => {
    await pb?.stop();
    await Promise.all([openai.close(), gemini.close(), anthropic.close(), local.close()]);
  });

  const request = async (method: string, path: string, body: string, headers: Record<string, string>, admin: boolean) => {
    const response = await fetch(`${pb.patchbay.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${admin ? pb.patchbay.adminToken : pb.key}`, 'content-type': 'application/json', ...headers },
      body,
      signal: AbortSignal.timeout(120_000),
    });
    const text = await response.text();
    return { status: response.status, text };
  };

  /** Sends one request and checks the answer. */
  const send = async (method: string, path: string, body: string, headers: Record<string, string>, admin: boolean) => {
    const { status, text } = await request(method, path, body, headers, admin);
    const where = `${method} ${path} ${JSON.stringify(headers)} ${body.slice(0, 300)} -> ${status} ${text.slice(0, 300)}`;
    expect(status, where).toBeLessThan(500);
    if (status >= 400) {
      const error = (JSON.parse(text) as { error: Record<string, unknown> }).error;
      expect(typeof error.message, where).toBe('string');
      expect(typeof error.type, where).toBe('string');
      expect(error.param === null || typeof error.param === 'string', where).toBe(true);
      expect(error.code === null || typeof error.code === 'string', where).toBe(true);
    } else if (!text.startsWith('data:')) {
      JSON.parse(text);
    }
  };

  const stillServes = async () => {
    const response = await fetch(`${pb.patchbay.url}/v1/models`, { headers: { authorization: `Bearer ${pb.key}` } });
    expect(response.status).toBe(200);
  };

  const fuzz = async (method: string, path: string, body: fc.Arbitrary<string>, options: { admin?: boolean; headers?: fc.Arbitrary<Record<string, string>> } = {}) => {
    await fc.assert(
      fc.asyncProperty(body, options.headers ?? fc.constant({}), (text, headers) => send(method, path, text, headers, options.admin ?? false)),
      { numRuns: RUNS, endOnFailure: true },
    );
    await stillServes();
  };

  it('POST /v1/chat/completions', async () => {
    const valid = fc.tuple(fc.constantFrom(...MODELS), toolSchemas).map(([model, parameters]) => ({ ...chatBase(model), tools: [tool(parameters)] }));
    await fuzz('POST', '/v1/chat/completions', bodies(valid), { headers: routingHeaders });
  });

  it('POST /v1/completions', async () => {
    await fuzz('POST', '/v1/completions', bodies(fc.constantFrom(...MODELS).map(completionBase)), { headers: routingHeaders });
  });

  it('POST /v1/embeddings', async () => {
    await fuzz('POST', '/v1/embeddings', bodies(fc.constant(embeddingBase)), { headers: routingHeaders });
  });

  it('POST /api/keys and PATCH /api/keys/:id', async () => {
    const key = { name: 'fuzzed', expires_at: '2099-01-31', allowed_models: ['gpt-4o'], monthly_token_cap: 1000, monthly_usd_cap: 5, rpm_limit: 60, tpm_limit: 1000 };
    await fuzz('POST', '/api/keys', bodies(fc.constant(key)), { admin: true });
    await fuzz('PATCH', `/api/keys/${targetKeyId}`, bodies(fc.constant(key)), { admin: true });
  });

  it('PUT /api/routing, PATCH /api/providers/:name', async () => {
    await fuzz('PUT', '/api/routing', bodies(fc.constant({ strategy: 'balanced', weights: { latency: 0.4, cost: 0.3, availability: 0.3 } })), { admin: true });
    // A provider /v1 fuzzing does not use, so a fuzzed baseUrl or enabled flag cannot turn later answers into 502s.
    await fuzz('PATCH', '/api/providers/together', bodies(fc.constant({ enabled: true, baseUrl: 'http://127.0.0.1:9/v1' })), { admin: true });
  });

  it('PUT /api/providers/:name/secret (invalid bodies only: no secret reaches any keychain)', async () => {
    const invalid = bodies(fc.constant({ secret: 'sk-x', extra: 1 })).filter((text) => {
      try {
        const value = JSON.parse(text) as { secret?: unknown };
        return !(value && typeof value === 'object' && typeof value.secret === 'string' && value.secret.length >= 8);
      } catch {
        return true;
      }
    });
    await fuzz('PUT', '/api/providers/together/secret', invalid, { admin: true });
  });
});
