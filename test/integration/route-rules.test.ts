import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AnthropicEmulator } from '../emulators/anthropic-emulator.ts';
import { GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { TogetherEmulator } from '../emulators/together-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';

/**
 * Routing by what a request is for: Claude Code's gateway hint headers (the request class, the
 * subagent's type) and the request itself (the tier model asked for, thinking, tools, prompt size)
 * matched by routing.rules in order, first match wins; the route reason, the explain API and the
 * usage row name the rule, the Sessions API sums each session's cost per request class, and a
 * compaction resets the session's sticky endpoint.
 */

const KEYS = { ANTHROPIC_API_KEY: 'sk-ant-rules', OPENAI_API_KEY: 'sk-rules', GEMINI_API_KEY: 'AIza-rules', GROQ_API_KEY: 'gsk_rules', TOGETHER_API_KEY: 'tgp_v1_rules' };
const emulators = {
  anthropic: new AnthropicEmulator({ apiKey: KEYS.ANTHROPIC_API_KEY }),
  openai: new OpenAiEmulator({ apiKey: KEYS.OPENAI_API_KEY }),
  google: new GeminiEmulator({ apiKey: KEYS.GEMINI_API_KEY }),
  groq: new GroqEmulator({ apiKey: KEYS.GROQ_API_KEY }),
  together: new TogetherEmulator({ apiKey: KEYS.TOGETHER_API_KEY }),
};
const RULES = [
  { name: 'compaction', when: { requestClass: 'compaction' }, model: 'google/gemini-2.5-flash' },
  { name: 'explorer', when: { requestClass: 'subagent', agentType: ['Explore', 'Plan'] }, model: 'openai/gpt-4o-mini' },
  { when: { requestClass: ['auxiliary', 'side_reply'] }, model: 'groq/llama-3.1-8b-instant' },
  { name: 'haiku tier', when: { model: 'claude-haiku-*' }, model: 'gemini-2.5-flash' },
  { name: 'search', when: { tools: 'web_search' }, model: 'anthropic/claude-sonnet-4-5-20250929' },
  { name: 'long', when: { windowShareAtLeast: 0.5 }, model: 'google/gemini-2.5-pro' },
];
let pb: TestPatchbay;
let anthropic: Anthropic;

beforeAll(async () => {
  const [a, o, g, q, t] = await Promise.all([emulators.anthropic.start(), emulators.openai.start(), emulators.google.start(), emulators.groq.start(), emulators.together.start()]);
  pb = await startPatchbay({
    config: {
      providers: { anthropic: { baseUrl: `${a}/v1` }, openai: { baseUrl: `${o}/v1` }, google: { baseUrl: `${g}/v1beta` }, groq: { baseUrl: `${q}/openai/v1` }, together: { baseUrl: `${t}/v1` } },
      routing: { rules: RULES },
    },
    env: KEYS,
  });
  anthropic = new Anthropic({ baseURL: pb.patchbay.url, apiKey: pb.key, maxRetries: 0 });
});
afterAll(async () => {
  await pb?.stop();
  await Promise.all(Object.values(emulators).map((e) => e.close()));
});

const api = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${pb.patchbay.url}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${pb.patchbay.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
};

/** One Messages turn as Claude Code sends it with its hint headers. */
async function claudeTurn(model: string, headers: Record<string, string>, extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {}) {
  const { response } = await anthropic.messages.create({ model, max_tokens: 256, messages: [{ role: 'user', content: 'hello there' }], ...extra }, { headers }).withResponse();
  return { provider: response.headers.get('x-patchbay-provider'), reason: response.headers.get('x-patchbay-route-reason') ?? '', requestId: response.headers.get('x-patchbay-request-id') };
}

const rowOf = (requestId: string | null) => vi.waitFor(() => {
  const row = usageRows(pb.patchbay).find((r) => r.request_id === requestId);
  expect(row).toBeDefined();
  return row!;
});

describe('routing.rules', () => {
  it('sends a compaction, an Explore subagent and an auxiliary call where the rules say, and names the rule in the route reason and on the usage row', async () => {
    const session = { 'x-claude-code-session-id': 'sess-rules-1' };
    const compaction = await claudeTurn('claude-sonnet-4-5', { ...session, 'x-claude-code-request-class': 'compaction', 'x-claude-code-compaction': 'auto' });
    expect(compaction.provider).toBe('google');
    expect(compaction.reason).toMatch(/^rule "compaction" \(routing\.rules\[0\]\) matched \(request class compaction\): claude-sonnet-4-5 -> google\/gemini-2\.5-flash; /);

    const explore = await claudeTurn('claude-sonnet-4-5', { ...session, 'x-claude-code-request-class': 'subagent', 'x-claude-code-agent-type': 'Explore', 'x-claude-code-agent-id': 'agent-1' });
    expect(explore.provider).toBe('openai');
    expect(explore.reason).toContain('rule "explorer" (routing.rules[1]) matched (request class subagent, agent type Explore)');
    // Another subagent type is not the rule's: the model asked for serves it.
    expect((await claudeTurn('claude-sonnet-4-5', { ...session, 'x-claude-code-request-class': 'subagent', 'x-claude-code-agent-type': 'general-purpose' })).provider).toBe('anthropic');

    const auxiliary = await claudeTurn('claude-sonnet-4-5', { ...session, 'x-claude-code-request-class': 'auxiliary' });
    expect(auxiliary.provider).toBe('groq');
    expect(auxiliary.reason).toMatch(/^rule routing\.rules\[2\] matched \(request class auxiliary\)/);

    const main = await claudeTurn('claude-sonnet-4-5', { ...session, 'x-claude-code-request-class': 'main' });
    expect(main.provider).toBe('anthropic');
    expect(main.reason).not.toContain('rule');

    const row = await rowOf(compaction.requestId);
    expect(row).toMatchObject({ request_class: 'compaction', provider: 'google', requested_model: 'claude-sonnet-4-5' });
    expect(String(row.route_reason)).toContain('rule "compaction"');
    expect((await rowOf(main.requestId)).request_class).toBe('main');
  });

  it("matches the tier model Claude Code asked for, the tools offered and the prompt's share of the window, for any client", async () => {
    expect((await claudeTurn('claude-haiku-4-5-20251001', {})).provider).toBe('google');
    const tools = [{ name: 'web_search', description: 'Search the web', input_schema: { type: 'object' as const, properties: { query: { type: 'string' } } } }];
    const search = await claudeTurn('claude-haiku-4-5', {}, { tools });
    // First match wins: the haiku rule comes before the search rule.
    expect(search.reason).toContain('rule "haiku tier"');
    const searched = await claudeTurn('claude-opus-4-5', {}, { tools });
    expect(searched.reason).toContain('rule "search" (routing.rules[4]) matched (offers web_search)');
    // Half of gpt-4o's 128,000-token window: about 256 KB of text.
    const long = await pb.client.chat.completions.create({ model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'word '.repeat(80_000) }] }).withResponse();
    expect(long.response.headers.get('x-patchbay-provider')).toBe('google');
    expect(long.response.headers.get('x-patchbay-route-reason')).toMatch(/rule "long" \(routing\.rules\[5\]\) matched \(prompt ~\d+ tokens, 0\.\d\d of the 128000-token window\)/);
  });

  it('the explain API names the rule a request would match, and no rule for a request that matches none', async () => {
    const explained = await api('POST', '/routing/explain', { model: 'claude-sonnet-4-5', request_class: 'compaction' });
    expect(explained.status).toBe(200);
    expect(explained.body.rule).toEqual({ index: 0, name: 'compaction', model: 'google/gemini-2.5-flash', why: 'request class compaction' });
    expect(explained.body.candidates[0].endpoint).toBe('google/gemini-2.5-flash');
    expect(explained.body.reason).toMatch(/^rule "compaction"/);
    const none = await api('POST', '/routing/explain', { model: 'claude-sonnet-4-5', request_class: 'main' });
    expect(none.body.rule).toBeNull();
    expect(none.body.candidates[0].endpoint).toBe('anthropic/claude-sonnet-4-5-20250929');
  });

  it('the Sessions API gives each session its requests and cost per request class', async () => {
    const session = { 'x-claude-code-session-id': 'sess-classes' };
    await claudeTurn('claude-sonnet-4-5', { ...session, 'x-claude-code-request-class': 'main' });
    await claudeTurn('claude-sonnet-4-5', { ...session, 'x-claude-code-request-class': 'main' });
    const last = await claudeTurn('claude-sonnet-4-5', { ...session, 'x-claude-code-request-class': 'compaction' });
    await rowOf(last.requestId);
    const page = await vi.waitFor(async () => {
      const found = (await api('GET', '/usage/sessions?session=sess-classes')).body.data[0];
      expect(found?.requests).toBe(3);
      return found;
    });
    const byClass = Object.fromEntries(page.classes.map((c: { request_class: string; requests: number; cost_usd: number }) => [c.request_class, c]));
    expect(byClass.main.requests).toBe(2);
    expect(byClass.compaction.requests).toBe(1);
    expect(byClass.main.cost_usd + byClass.compaction.cost_usd).toBeCloseTo(page.cost_usd, 10);
  });

  it('rules are changed live through /api/routing, and a bad rule is refused naming its field', async () => {
    const bad = await api('PUT', '/routing', { rules: [{ when: { requestClass: 'compacting' }, model: 'google/gemini-2.5-flash' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('rules[0].when.requestClass');
    const empty = await api('PUT', '/routing', { rules: [{ when: {}, model: 'google/gemini-2.5-flash' }] });
    expect(empty.body.error).toMatchObject({ param: 'rules[0].when', message: expect.stringContaining('must name at least one condition') });
    const unknown = await api('PUT', '/routing', { rules: [{ when: { requestClass: 'auxiliary' }, model: 'gpt-99-turbo' }] });
    expect(unknown.body.error).toMatchObject({ param: 'routing.rules[0].model', message: expect.stringContaining('gpt-99-turbo') });
    expect((await api('GET', '/routing')).body.rules).toHaveLength(RULES.length);

    const changed = await api('PUT', '/routing', { rules: [{ name: 'aux', when: { requestClass: 'auxiliary' }, model: 'openai/gpt-4o-mini' }] });
    expect(changed.status).toBe(200);
    expect(changed.body.rules).toEqual([{ name: 'aux', when: { requestClass: ['auxiliary'] }, model: 'openai/gpt-4o-mini' }]);
    expect((await claudeTurn('claude-sonnet-4-5', { 'x-claude-code-request-class': 'auxiliary' })).provider).toBe('openai');
    expect((await claudeTurn('claude-sonnet-4-5', { 'x-claude-code-request-class': 'compaction' })).provider).toBe('anthropic');
    await api('PUT', '/routing', { rules: RULES });
  });

  it("a compaction forgets the session's sticky endpoint, so its next request is planned afresh", async () => {
    // No rule this time: the compaction goes where the session is.
    await api('PUT', '/routing', { rules: [] });
    const session = { 'x-claude-code-session-id': 'sess-sticky' };
    const first = await claudeTurn('llama-3.3-70b', { ...session, 'x-claude-code-request-class': 'main' });
    const second = await claudeTurn('llama-3.3-70b', { ...session, 'x-claude-code-request-class': 'main' });
    expect(second.reason).toContain(`sticky: ${first.provider}/`);
    const compaction = await claudeTurn('llama-3.3-70b', { ...session, 'x-claude-code-compaction': 'manual' }, {});
    // The compaction itself stays where the session's cache is, then the memory is reset.
    expect(compaction.reason).toContain('compaction: the session');
    expect(compaction.provider).toBe(first.provider);
    const after = await claudeTurn('llama-3.3-70b', { ...session, 'x-claude-code-request-class': 'main' });
    expect(after.reason).not.toContain('sticky:');
    await api('PUT', '/routing', { rules: RULES });
  });
});
