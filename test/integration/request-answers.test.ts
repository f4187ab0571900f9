import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { TogetherEmulator } from '../emulators/together-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';

const KEYS = { OPENAI_API_KEY: 'sk-test-answers-openai', GROQ_API_KEY: 'gsk-test-answers-groq', TOGETHER_API_KEY: 'tg-test-answers-together' };
const ALIAS = 'llama-3.3-70b';
const GROQ_MODEL = 'llama-3.3-70b-versatile';

// Issue 25 (3 and 2): why a request failed or went where it went, on the usage row and in the
// request log; a provider's failures counted whether or not a fallback rescued the request.
describe('the request log and provider health answer why', () => {
  const openai = new OpenAiEmulator({ apiKey: KEYS.OPENAI_API_KEY });
  const groq = new GroqEmulator({ apiKey: KEYS.GROQ_API_KEY });
  const together = new TogetherEmulator({ apiKey: KEYS.TOGETHER_API_KEY });
  let pb: TestPatchbay;

  beforeAll(async () => {
    const [o, g, t] = await Promise.all([openai.start(), groq.start(), together.start()]);
    pb = await startPatchbay({
      config: {
        providers: { openai: { baseUrl: `${o}/v1` }, groq: { baseUrl: `${g}/openai/v1` }, together: { baseUrl: `${t}/v1` } },
        routing: { breaker: { failureThreshold: 2, cooldownMs: 600_000 } },
      },
      env: KEYS,
    });
  });
  afterEach(() => {
    for (const emulator of [openai, groq, together]) emulator.clearFaults();
  });
  afterAll(async () => {
    await pb.stop();
    await Promise.all([openai.close(), groq.close(), together.close()]);
  });

  const chat = (client: OpenAI, model: string) => client.chat.completions.create({ model, messages: [{ role: 'user', content: 'why?' }], max_tokens: 20 }).withResponse();
  const lastRow = () => usageRows(pb.patchbay).at(-1)!;
  const status = async (provider: string) => (await pb.patchbay.management.status()).providers.find((p) => p.name === provider)!;

  it('a request a fallback served is marked, its route reason names who served it, and the failure counts against the provider that failed', async () => {
    groq.inject({ path: '/chat/completions', status: 500 });
    const { response } = await chat(pb.client, `${ALIAS}:cost`);
    expect(response.headers.get('x-patchbay-provider')).toBe('together');
    const reason = response.headers.get('x-patchbay-route-reason')!;
    expect(reason).toContain(`cost chose groq/${GROQ_MODEL}`);
    expect(reason).toContain(`groq/${GROQ_MODEL} failed (500`);
    expect(reason).toMatch(/fallback together\/\S+ served it/);
    const row = lastRow();
    expect(row).toMatchObject({ provider: 'together', fallback: 1, status: 200, error_message: null });
    expect(row.route_reason).toBe(reason);

    const page = await pb.patchbay.management.usageLog({ model: ALIAS });
    expect(page.data[0]).toMatchObject({ fallback: true, provider: 'together' });
    expect(await status('groq')).toMatchObject({ samples: 1, error_rate: 1, last_error: { status: 500, model: GROQ_MODEL } });
    expect(await status('together')).toMatchObject({ error_rate: 0, last_error: null });
  });

  it('the model filter finds a request by the alias it asked for, the provider\'s own id, or provider/model', async () => {
    await chat(pb.client, `${ALIAS}:cost`);
    for (const model of [ALIAS, GROQ_MODEL, `groq/${GROQ_MODEL}`]) {
      expect((await pb.patchbay.management.usageLog({ model })).data.length, model).toBeGreaterThan(0);
    }
  });

  it('a provider answering 401 to every request shows its error rate and last error, though its breaker stays closed', async () => {
    openai.inject({ path: '/chat/completions', status: 401, times: Infinity });
    for (let i = 0; i < 3; i++) await chat(pb.client, 'gpt-4o-mini').catch(() => undefined);
    const openaiStatus = await status('openai');
    expect(openaiStatus.error_rate).toBe(1);
    expect(openaiStatus.samples).toBe(3);
    expect(openaiStatus.last_error).toMatchObject({ status: 401, model: 'gpt-4o-mini' });
    expect(openaiStatus.last_error!.message).toBeTruthy();
    const row = lastRow();
    expect(row.status).toBe(502);
    expect(row.error_message).toContain('openai');
  });

  it('a 503 no_eligible_provider keeps its reason on the row (open breakers), and a 429 insufficient_quota the cap and what was used', async () => {
    groq.inject({ path: '/chat/completions', status: 500, times: 2 });
    for (let i = 0; i < 2; i++) await chat(pb.client, `groq/${GROQ_MODEL}`).catch(() => undefined);
    const refused = await chat(pb.client, `groq/${GROQ_MODEL}`).catch((e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
    expect(refused).toMatchObject({ status: 503, code: 'no_eligible_provider' });
    const row = lastRow();
    expect(row).toMatchObject({ status: 503, error_type: 'no_eligible_provider', provider: null });
    expect((refused as Error).message).toContain(row.error_message);
    expect(row.error_message).toMatch(/circuit breaker|breaker/i);
    const fromLog = await pb.patchbay.management.usageRequest(row.request_id as string);
    expect(fromLog.error_message).toBe(row.error_message);

    const { secret } = await pb.patchbay.management.createKey({ name: 'capped', monthly_usd_cap: 0.00001 });
    const capped = new OpenAI({ baseURL: `${pb.patchbay.url}/v1`, apiKey: secret, maxRetries: 0 });
    let quota: unknown;
    for (let i = 0; i < 10 && !quota; i++) await chat(capped, 'gpt-4o-mini').catch((e: unknown) => (quota = e));
    expect(quota).toMatchObject({ status: 429, code: 'insufficient_quota' });
    expect(lastRow()).toMatchObject({ status: 429, error_type: 'insufficient_quota' });
    expect((quota as Error).message).toContain(lastRow().error_message);
    expect(lastRow().error_message).toContain('monthly spend cap of $0.00001');
  });

  it('the usage breakdown answers per model, provider and key (by name): requests, tokens, cost, errors, p50/p95', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const byModel = (await pb.patchbay.management.usageBreakdown({ from: today, to: today, group_by: 'model' })).data;
    const together = byModel.find((r) => r.group?.startsWith('together/'))!;
    expect(together.requests).toBeGreaterThan(0);
    expect(together.cost_usd).toBeGreaterThan(0);
    expect(together.prompt_tokens).toBeGreaterThan(0);
    expect(together.p50_ms).toBeGreaterThan(0);
    expect(together.p95_ms!).toBeGreaterThanOrEqual(together.p50_ms!);
    // Refused before routing (the 503 and the 429 above): a group of their own, all errors.
    const refused = byModel.find((r) => r.group === null)!;
    expect(refused.errors).toBe(refused.requests);
    const byProvider = (await pb.patchbay.management.usageBreakdown({ from: today, to: today, group_by: 'provider' })).data;
    expect(byProvider.find((r) => r.group === 'openai')).toMatchObject({ errors: 3 });
    const byKey = (await pb.patchbay.management.usageBreakdown({ from: today, to: today, group_by: 'key' })).data;
    expect(byKey.map((r) => r.key_name).sort()).toEqual(['capped', 'default']);
    const sum = byModel.reduce((total, r) => total + r.requests, 0);
    expect(sum).toBe(usageRows(pb.patchbay).length);
  });

  it('the Keys list shows a capped key refusing, with what the refused request needed', async () => {
    const capped = (await pb.patchbay.management.listKeys()).find((k) => k.name === 'capped')!;
    expect(capped.cap_refusal).toMatchObject({ cap: 'usd' });
    expect(capped.cap_refusal!.needed).toBeGreaterThan(0);
    expect(capped.month_usage).toMatchObject({ reserved_usd: 0, reserved_tokens: 0 });
    // Raising the cap far enough lifts the refusal at once.
    await pb.patchbay.management.updateKey(capped.id, { monthly_usd_cap: 10 });
    expect((await pb.patchbay.management.listKeys()).find((k) => k.name === 'capped')!.cap_refusal).toBeNull();
  });
});
