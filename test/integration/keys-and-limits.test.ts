import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';

const UPSTREAM_KEY = 'sk-test-limits-upstream';

describe('Patchbay keys: rotation, expiry, model limits, rate limits and caps', () => {
  const emulator = new OpenAiEmulator({ apiKey: UPSTREAM_KEY });
  let pb: TestPatchbay;
  const clientFor = (key: string) => new OpenAI({ baseURL: `${pb.patchbay.url}/v1`, apiKey: key, maxRetries: 0 });
  const create = (settings: Parameters<TestPatchbay['patchbay']['management']['createKey']>[0]) => pb.patchbay.management.createKey(settings);
  const ask = (client: OpenAI, extra: Record<string, unknown> = {}) =>
    client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'one two three' }], ...extra } as never).withResponse();

  beforeAll(async () => {
    const upstream = await emulator.start();
    pb = await startPatchbay({ config: { providers: { openai: { baseUrl: `${upstream}/v1` } } }, env: { OPENAI_API_KEY: UPSTREAM_KEY } });
  });
  afterAll(async () => {
    await pb?.stop();
    await emulator.close();
  });

  it('rotates a key: same record and settings, the old secret stops working at once', async () => {
    const { key, secret } = await create({ name: 'rotating', rpm_limit: 1000 });
    await expect(clientFor(secret).models.list()).resolves.toBeTruthy();
    const rotated = await pb.patchbay.management.rotateKey(key.id);
    expect(rotated.key).toMatchObject({ id: key.id, name: 'rotating', rpm_limit: 1000 });
    expect(rotated.secret).not.toBe(secret);
    await expect(clientFor(secret).models.list()).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
    await expect(clientFor(rotated.secret).models.list()).resolves.toBeTruthy();
  });

  it('refuses an expired key with 401 saying it expired', async () => {
    const { secret } = await create({ name: 'old', expires_at: Date.now() - 1000 });
    const error = await clientFor(secret).models.list().catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect((error as Error).message).toContain('expired');
  });

  it('limits a key to listed models or aliases with 403, including fallback models', async () => {
    const { secret } = await create({ name: 'mini-only', allowed_models: ['gpt-4o-mini', 'openai/text-embedding-3-small'] });
    const client = clientFor(secret);
    await expect(client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] })).resolves.toBeTruthy();
    await expect(client.chat.completions.create({ model: 'gpt-4o-mini:cost', messages: [{ role: 'user', content: 'x' }] })).resolves.toBeTruthy();
    await expect(client.embeddings.create({ model: 'text-embedding-3-small', input: 'x' })).resolves.toBeTruthy();
    const denied = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(denied).toMatchObject({ code: 'model_not_allowed', param: 'model' });
    const viaFallback = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }, { headers: { 'X-Patchbay-Fallback': 'openai/gpt-4o' } })
      .catch((e: unknown) => e);
    expect(viaFallback).toMatchObject({ status: 403 });
  });

  it('still refuses a restricted key a model that other keys have just used (routing remembers models, not permissions)', async () => {
    const open = clientFor((await create({ name: 'open' })).secret);
    const restricted = clientFor((await create({ name: 'mini-only-2', allowed_models: ['gpt-4o-mini'] })).secret);
    const fallback = { headers: { 'X-Patchbay-Fallback': 'openai/gpt-4o' } };
    await expect(open.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })).resolves.toBeTruthy();
    await expect(open.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }, fallback)).resolves.toBeTruthy();
    await expect(restricted.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 403, code: 'model_not_allowed' });
    await expect(restricted.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }, fallback)).rejects.toMatchObject({ status: 403 });
    await expect(restricted.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] })).resolves.toBeTruthy();
  });

  it('lets exactly 10 of 50 parallel requests through a limit of 10 per minute, with Retry-After and rate-limit headers', async () => {
    const { secret } = await create({ name: 'rpm10', rpm_limit: 10 });
    const client = clientFor(secret);
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => ask(client)));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const limited = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(10);
    expect(limited).toHaveLength(40);
    for (const failure of limited) {
      expect(failure.reason).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
      expect(Number(failure.reason.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(failure.reason.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    }
    const remaining = ok.map((r) => Number((r as PromiseFulfilledResult<Awaited<ReturnType<typeof ask>>>).value.response.headers.get('x-ratelimit-remaining-requests'))).sort((a, b) => a - b);
    expect(remaining).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect((ok[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof ask>>>).value.response.headers.get('x-ratelimit-limit-requests')).toBe('10');
  });

  it('enforces tokens per minute and sets the token headers on every /v1 answer, errors included', async () => {
    const { secret } = await create({ name: 'tpm', tpm_limit: 300 });
    const client = clientFor(secret);
    const first = await ask(client, { max_tokens: 100 });
    expect(first.response.headers.get('x-ratelimit-limit-tokens')).toBe('300');
    const remaining = Number(first.response.headers.get('x-ratelimit-remaining-tokens'));
    expect(remaining).toBeLessThan(300);
    // A bad request still carries the headers.
    const bad = (await client.chat.completions.create({ model: 'gpt-4o', messages: [] }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(bad.status).toBe(400);
    expect(bad.headers?.get('x-ratelimit-limit-tokens')).toBe('300');
    const tooBig = await ask(client, { max_tokens: 400 }).catch((e: unknown) => e);
    expect(tooBig).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect((tooBig as Error).message).toContain('tokens per minute');
    // The first request settled at what it really used; a request that would pass the limit with it waits.
    const over = await ask(client, { max_tokens: 290 }).catch((e: unknown) => e);
    expect(over).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect((over as Error).message).toMatch(/300 tokens per minute \(\d+ used\)/);
  });

  it('stops a key at its monthly token cap with 429 insufficient_quota naming the cap, never overrun under concurrency with max_tokens', async () => {
    const { key, secret } = await create({ name: 'capped', monthly_token_cap: 200 });
    const client = clientFor(secret);
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => ask(client, { max_tokens: 20 })));
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    expect(ok).toBeGreaterThan(0);
    const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!;
    expect(rejected.reason).toMatchObject({ status: 429, code: 'insufficient_quota', type: 'insufficient_quota' });
    expect(rejected.reason.message).toContain('monthly token cap of 200');
    const used = usageRows(pb.patchbay).filter((r) => r.key_id === key.id && r.status === 200).reduce((sum, r) => sum + (r.total_tokens as number), 0);
    expect(used).toBeLessThanOrEqual(200);
    expect((await pb.patchbay.management.listKeys()).find((k) => k.id === key.id)!.month_usage.tokens).toBe(used);
  });

  it('stops a key at its monthly USD cap', async () => {
    const { secret } = await create({ name: 'usd', monthly_usd_cap: 0.0001 });
    const client = clientFor(secret);
    let spent = 0;
    let error: unknown;
    for (let i = 0; i < 20 && !error; i++) {
      try {
        await ask(client, { max_tokens: 5 });
        spent++;
      } catch (e) {
        error = e;
      }
    }
    expect(spent).toBeGreaterThan(0);
    expect(error).toMatchObject({ status: 429, code: 'insufficient_quota' });
    expect((error as Error).message).toContain('monthly spend cap of $0.0001');
  });
});
