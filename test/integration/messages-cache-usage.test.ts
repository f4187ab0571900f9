import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicEmulator } from '../emulators/anthropic-emulator.ts';
import { GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';
import { runUsageCommand } from '../../core/cli/usage-command.ts';

/**
 * Prompt-cache and reasoning tokens end to end (issue 16 item 4): a cache_control breakpoint sent
 * on /v1/messages reaches Anthropic unchanged; the cache writes (by lifetime), cache reads and
 * reasoning tokens each upstream reports land on the usage row; the cost prices them at the
 * catalog's cache prices; OpenAI-shaped answers show them in the usage details.
 */

let anthropicUpstream: AnthropicEmulator;
let gemini: GeminiEmulator;
let pb: TestPatchbay;
let anthropic: Anthropic;

beforeAll(async () => {
  anthropicUpstream = new AnthropicEmulator({ apiKey: 'sk-ant-cache' });
  gemini = new GeminiEmulator({ apiKey: 'gm-cache', cachedTokens: 4, thoughtsTokens: 30 });
  const [anthropicUrl, geminiUrl] = await Promise.all([anthropicUpstream.start(), gemini.start()]);
  pb = await startPatchbay({
    config: { providers: { anthropic: { baseUrl: `${anthropicUrl}/v1` }, google: { baseUrl: `${geminiUrl}/v1beta` } } },
    env: { ANTHROPIC_API_KEY: 'sk-ant-cache', GEMINI_API_KEY: 'gm-cache' },
  });
  anthropic = new Anthropic({ baseURL: pb.patchbay.url, apiKey: pb.key, maxRetries: 0 });
});
afterAll(async () => {
  await pb?.stop();
  await anthropicUpstream?.close();
  await gemini?.close();
});

const SONNET = { input: 3, output: 15, write5m: 3.75, write1h: 6, read: 0.3 };
const LONG_SYSTEM = 'You are a careful reviewer of TypeScript code. '.repeat(40);

function lastRow(): Record<string, unknown> {
  const rows = usageRows(pb.patchbay);
  return rows[rows.length - 1];
}

function ask(system: Anthropic.TextBlockParam[]) {
  return { model: 'claude-sonnet-4-5-20250929', max_tokens: 64, system, messages: [{ role: 'user' as const, content: 'Review this.' }] };
}

describe('Anthropic prompt caching over /v1/messages', () => {
  it('forwards cache_control unchanged, records the 5-minute write and then the read, and prices each', async () => {
    const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: LONG_SYSTEM, cache_control: { type: 'ephemeral' } }];
    const first = await anthropic.messages.create(ask(system));
    const sent = anthropicUpstream.requests.filter((r) => r.path.startsWith('/v1/messages')).at(-1)!;
    expect((sent.body as { system: unknown }).system).toEqual([{ type: 'text', text: LONG_SYSTEM, cache_control: { type: 'ephemeral' } }]);

    const written = first.usage.cache_creation_input_tokens!;
    expect(written).toBeGreaterThan(100);
    const row1 = lastRow();
    expect(row1).toMatchObject({ endpoint: 'messages', cache_write_5m_tokens: written, cache_write_1h_tokens: 0, cache_read_tokens: 0 });
    expect(row1.prompt_tokens).toBe(first.usage.input_tokens + written);
    const cost1 = (first.usage.input_tokens * SONNET.input + written * SONNET.write5m + first.usage.output_tokens * SONNET.output) / 1e6;
    expect(row1.cost_usd).toBeCloseTo(cost1, 12);

    // The same prefix again, streamed: read from the cache, at a tenth of the input price.
    const stream = anthropic.messages.stream(ask(system));
    const second = await stream.finalMessage();
    expect(second.usage.cache_read_input_tokens).toBe(written);
    const row2 = lastRow();
    expect(row2).toMatchObject({ stream: 1, cache_read_tokens: written, cache_write_5m_tokens: 0 });
    const cost2 = (second.usage.input_tokens * SONNET.input + written * SONNET.read + second.usage.output_tokens * SONNET.output) / 1e6;
    expect(row2.cost_usd).toBeCloseTo(cost2, 12);
    expect(row2.cost_usd as number).toBeLessThan(row1.cost_usd as number);
  });

  it('records a 1-hour cache write apart and prices it at twice the input price', async () => {
    const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: `${LONG_SYSTEM} Hourly.`, cache_control: { type: 'ephemeral', ttl: '1h' } }];
    const message = await anthropic.messages.create(ask(system));
    const written = message.usage.cache_creation_input_tokens!;
    expect(written).toBeGreaterThan(100);
    const row = lastRow();
    expect(row).toMatchObject({ cache_write_1h_tokens: written, cache_write_5m_tokens: 0 });
    expect(row.cost_usd).toBeCloseTo((message.usage.input_tokens * SONNET.input + written * SONNET.write1h + message.usage.output_tokens * SONNET.output) / 1e6, 12);
  });
});

describe('Gemini cached and thinking tokens', () => {
  const FLASH = { input: 0.3, output: 2.5, read: 0.03 };

  it('shows them in the OpenAI usage details and records and prices them on the row', async () => {
    const completion = await pb.client.chat.completions.create({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Say something short about caching.' }] });
    const usage = completion.usage!;
    expect(usage.prompt_tokens_details?.cached_tokens).toBe(4);
    expect(usage.completion_tokens_details?.reasoning_tokens).toBe(30);
    const row = lastRow();
    expect(row).toMatchObject({ endpoint: 'chat', prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, cache_read_tokens: 4, reasoning_tokens: 30 });
    // Reasoning tokens are output tokens already: priced once, inside completion_tokens.
    expect(row.cost_usd).toBeCloseTo(((usage.prompt_tokens - 4) * FLASH.input + 4 * FLASH.read + usage.completion_tokens * FLASH.output) / 1e6, 12);
  });

  it('records them from a streamed /v1/messages answer translated from Gemini', async () => {
    const message = await anthropic.messages.stream({ model: 'gemini-2.5-flash', max_tokens: 64, messages: [{ role: 'user', content: 'Say something short.' }] }).finalMessage();
    expect(message.usage.cache_read_input_tokens).toBe(4);
    expect(lastRow()).toMatchObject({ endpoint: 'messages', provider: 'google', cache_read_tokens: 4, reasoning_tokens: 30 });
  });
});

describe('patchbay usage', () => {
  async function usage(args: string[]): Promise<string> {
    let out = '';
    const code = await runUsageCommand([...args, '--data-dir', pb.dataDir], { out: (text) => (out += text), err: (text) => (out += text), env: {} });
    expect(code).toBe(0);
    return out;
  }

  it('shows the cache and reasoning columns, in the table, its JSON and the CSV export', async () => {
    const rows = usageRows(pb.patchbay);
    const sum = (column: string, provider: string) => rows.filter((r) => r.provider === provider).reduce((total, r) => total + (r[column] as number), 0);
    const table = await usage(['--by', 'provider']);
    expect(table).toMatch(/PROMPT +CACHE READ +CACHE WRITE +COMPLETION +REASONING +TOTAL +COST/);
    const anthropicLine = table.split('\n').find((line) => line.startsWith('anthropic'))!;
    const cacheWrites = sum('cache_write_5m_tokens', 'anthropic') + sum('cache_write_1h_tokens', 'anthropic');
    expect(anthropicLine.split(/ +/).slice(3, 6)).toEqual([String(sum('prompt_tokens', 'anthropic')), String(sum('cache_read_tokens', 'anthropic')), String(cacheWrites)]);

    const json = JSON.parse(await usage(['--by', 'provider', '--json'])) as { rows: Record<string, unknown>[]; total: Record<string, number> };
    expect(json.rows.find((r) => r.group === 'google')).toMatchObject({ cache_read_tokens: 8, reasoning_tokens: 60 });
    expect(json.total.cache_write_tokens).toBe(cacheWrites);

    const csv = (await usage(['--export', 'csv'])).split('\n');
    expect(csv[0]).toContain('cache_read_tokens,cache_write_5m_tokens,cache_write_1h_tokens,reasoning_tokens');
  });
});
