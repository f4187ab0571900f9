import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUsageRows, PROVIDERS, provider, startRig, usageRowCount, type ProviderName, type Rig } from '../helpers/conformance-matrix.ts';
import type { RecordedRequest } from '../emulators/emulator-server.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay } from '../helpers/start-patchbay.ts';

/**
 * What Claude Code 2.1.328 sends (shared/reference/agents-observed.md), translated for each
 * upstream: deferred tools stay out of the upstream's tool list until a tool search loads them
 * (`tool_reference` in a tool_result) or a mid-conversation system message adds them
 * (`tool_addition`, mid-conversation-tool-changes beta); output_config.format becomes the
 * upstream's JSON mode; max_tokens above a model's output limit is lowered to it and said.
 * Asserted on what the emulators received, on the response headers and on the usage row.
 */

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(() => rig.stop());

const TOOL_CHANGES_BETA = 'mid-conversation-tool-changes-2026-07-01';
const schema = (properties: Record<string, unknown>, required: string[]) => ({ type: 'object', properties, required, additionalProperties: false, $schema: 'https://json-schema.org/draft/2020-12/schema' });

/** Claude Code's tool list for a non-Claude model: the placeholder first (deferred), Bash and ToolSearch offered, the rest deferred. */
const TOOLS = [
  { name: 'DeferredToolPlaceholder', description: 'Reserved placeholder that keeps deferred tool loading active; never call this tool.', defer_loading: true, input_schema: schema({}, []) },
  { name: 'Bash', description: 'Runs a shell command.', input_schema: schema({ command: { type: 'string' } }, ['command']) },
  { name: 'ToolSearch', description: 'Finds deferred tools.', input_schema: schema({ query: { type: 'string' } }, ['query']) },
  { name: 'WebFetch', description: 'Fetches a URL.', defer_loading: true, input_schema: schema({ url: { type: 'string' } }, ['url']) },
  { name: 'NotebookEdit', description: 'Edits a notebook cell.', defer_loading: true, input_schema: schema({ notebook_path: { type: 'string' } }, ['notebook_path']) },
];

function claudeCodeBody(model: string, messages: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model,
    max_tokens: 32000,
    stream: true,
    system: [
      { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.328; cc_entrypoint=sdk-cli' },
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: 'ephemeral' } },
    ],
    messages,
    tools: TOOLS,
    metadata: { user_id: JSON.stringify({ device_id: 'd'.repeat(64), account_uuid: '', session_id: '0b0c1d2e-3f40-4152-8a9b-0c1d2e3f4051' }) },
    thinking: { type: 'adaptive', display: 'omitted' },
    context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
    output_config: { effort: 'high' },
    ...extra,
  };
}

const HEADERS = (key: string) => ({
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  'anthropic-version': '2023-06-01',
  'anthropic-beta': `interleaved-thinking-2025-05-14,context-management-2025-06-27,${TOOL_CHANGES_BETA}`,
  'x-app': 'cli',
  'x-claude-code-session-id': '0b0c1d2e-3f40-4152-8a9b-0c1d2e3f4051',
});

async function postMessages(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${rig.pb.patchbay.url}/v1/messages?beta=true`, { method: 'POST', headers: HEADERS(rig.pb.key), body: JSON.stringify(body) });
}

/** The upstream chat request the emulator received last (Gemini's generateContent, the others' chat/completions). */
function lastUpstream(name: ProviderName): RecordedRequest {
  const requests = rig.emulators[name].requests.filter((r) => r.method === 'POST');
  return requests[requests.length - 1];
}

/** The tool names an upstream was offered, in order, in its own wire format. */
function offeredNames(name: ProviderName, body: unknown): string[] {
  const b = body as { tools?: { function?: { name: string }; functionDeclarations?: { name: string }[] }[] };
  if (name === 'google') return (b.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
  return (b.tools ?? []).map((t) => t.function!.name);
}

/** The text of each Messages stream event's JSON, parsed, in order. */
function streamEvents(text: string): Record<string, any>[] {
  return text
    .split('\n\n')
    .filter((e) => /^data: /m.test(e))
    .map((e) => JSON.parse(/^data: (.+)$/m.exec(e)![1]) as Record<string, any>);
}

const ASK = { role: 'user', content: [{ type: 'text', text: 'List the files here.' }] };

/** A conversation in which ToolSearch loaded WebFetch, then a system message added NotebookEdit (the beta's tool_addition). */
const AFTER_SEARCH = [
  ASK,
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01search', name: 'ToolSearch', input: { query: 'select:WebFetch' } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01search', content: [{ type: 'tool_reference', tool_name: 'WebFetch' }] }] },
  { role: 'system', content: [{ type: 'tool_addition', tool: { type: 'tool_reference', name: 'NotebookEdit' } }] },
  { role: 'assistant', content: [{ type: 'text', text: 'WebFetch is loaded.' }] },
  { role: 'user', content: [{ type: 'text', text: 'Fetch the page.' }] },
];

describe.each(PROVIDERS.filter((p) => p.name !== 'anthropic').map((p) => [p.name, p] as const))('Claude Code via /v1/messages to %s', (name, target) => {
  it('offers only the tools not deferred, and the model calls one of them (Bash), not the placeholder', async () => {
    const response = await postMessages(claudeCodeBody(target.chat, [ASK]));
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(offeredNames(name, lastUpstream(name).body)).toEqual(['Bash', 'ToolSearch']);
    const start = streamEvents(text).find((e) => e.type === 'content_block_start' && e.content_block.type === 'tool_use');
    expect(start?.content_block.name).toBe('Bash');
  });

  it('adds a tool once a tool_reference loads it and once a system message adds it, from then on', async () => {
    const response = await postMessages(claudeCodeBody(target.chat, AFTER_SEARCH));
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(offeredNames(name, lastUpstream(name).body)).toEqual(['Bash', 'ToolSearch', 'WebFetch', 'NotebookEdit']);
    // The tool search's result reaches the model as text naming the loaded tool.
    expect(JSON.stringify(lastUpstream(name).body)).toContain('Tool \\"WebFetch\\" loaded');
  });

  it('says what it left out for this upstream (context_management; effort where the model has no reasoning setting)', async () => {
    const response = await postMessages(claudeCodeBody(target.chat, [ASK]));
    await response.text();
    const dropped = response.headers.get('x-patchbay-dropped') ?? '';
    expect(dropped).toContain('context_management');
    if (name === 'google') {
      // Gemini thinks with a budget: effort high becomes 16,384 thinking tokens.
      expect((lastUpstream(name).body as any).generationConfig.thinkingConfig).toMatchObject({ thinkingBudget: 16384 });
      expect(dropped).not.toContain('output_config.effort');
    } else {
      expect(dropped).toContain('output_config.effort');
      expect((lastUpstream(name).body as any).reasoning_effort).toBeUndefined();
    }
  });
});

describe('output_config.effort on a model that reasons (gpt-oss on Groq)', () => {
  it.each([
    ['high', 'high', null],
    ['max', 'high', 'output_config.effort=high (reasoning_effort has no max)'],
    ['xhigh', 'high', 'output_config.effort=high (reasoning_effort has no xhigh)'],
  ])('effort %s becomes reasoning_effort %s', async (effort, sent, adjusted) => {
    const response = await postMessages(claudeCodeBody('groq/openai/gpt-oss-120b', [ASK], { output_config: { effort } }));
    expect(response.status, await response.clone().text()).toBe(200);
    expect((lastUpstream('groq').body as { reasoning_effort?: string }).reasoning_effort).toBe(sent);
    // The model reasons by itself: adaptive thinking is not dropped either.
    expect(response.headers.get('x-patchbay-dropped')).toBe('context_management');
    expect(response.headers.get('x-patchbay-adjusted')).toBe(adjusted);
  });
});

describe('Claude Code to Anthropic itself', () => {
  it('passes deferred tools, tool references and tool changes through unchanged', async () => {
    const body = claudeCodeBody(provider('anthropic').chat, AFTER_SEARCH);
    const response = await postMessages(body);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const received = lastUpstream('anthropic');
    expect(received.headers['anthropic-beta']).toContain(TOOL_CHANGES_BETA);
    expect(received.body).toEqual({ ...body, model: provider('anthropic').servedChat });
    expect(response.headers.get('x-patchbay-dropped')).toBeNull();
  });

  it('the emulated Anthropic model does not see deferred tools either: it calls Bash', async () => {
    const response = await postMessages(claudeCodeBody(provider('anthropic').chat, [ASK], { stream: false }));
    const message = (await response.json()) as { content: { type: string; name?: string }[] };
    expect(message.content.find((b) => b.type === 'tool_use')?.name).toBe('Bash');
  });
});

describe('the session-title request (output_config.format)', () => {
  const titleBody = (model: string) => ({
    model,
    max_tokens: 32000,
    system: [{ type: 'text', text: 'Generate a concise title for this coding session. Answer in JSON.' }],
    messages: [{ role: 'user', content: 'Fix the failing test in parser.ts' }],
    output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'], additionalProperties: false } } },
  });

  it.each(['openai', 'groq', 'together'] as const)('asks %s for structured output with the schema and answers JSON', async (name) => {
    const response = await postMessages(titleBody(provider(name).chat));
    const message = (await response.json()) as { content: { type: string; text: string }[] };
    expect(response.status, JSON.stringify(message)).toBe(200);
    const sent = lastUpstream(name).body as { response_format?: { type: string; json_schema?: { schema: unknown } } };
    expect(sent.response_format?.type).toBe('json_schema');
    expect(sent.response_format?.json_schema?.schema).toMatchObject({ properties: { title: { type: 'string' } } });
    expect(JSON.parse(message.content[0].text)).toHaveProperty('title');
  });

  it('asks Gemini for a JSON answer with the schema', async () => {
    const response = await postMessages(titleBody(provider('google').chat));
    expect(response.status, await response.clone().text()).toBe(200);
    const config = (lastUpstream('google').body as any).generationConfig;
    expect(config.responseMimeType).toBe('application/json');
    expect(config.responseJsonSchema).toMatchObject({ properties: { title: { type: 'string' } } });
  });
});

describe('max_tokens above the model output limit', () => {
  it('is lowered to gpt-4o limit on /v1/messages, said in X-Patchbay-Adjusted and on the usage row', async () => {
    const before = usageRowCount(rig.pb);
    const response = await postMessages(claudeCodeBody(provider('openai').chat, [{ role: 'user', content: 'Hello' }], { tools: undefined }));
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect((lastUpstream('openai').body as { max_tokens: number }).max_tokens).toBe(16384);
    expect(response.headers.get('x-patchbay-adjusted')).toBe('max_tokens=16384 (gpt-4o output limit; asked 32000)');
    const [row] = await newUsageRows(rig.pb, before);
    expect(JSON.parse(row.adjustments as string)).toEqual({
      dropped: ['context_management', 'thinking', 'output_config.effort'],
      adjusted: ['max_tokens=16384 (gpt-4o output limit; asked 32000)'],
    });
    // The request log answers the same, for the dashboard's request detail.
    const detail = await fetch(`${rig.pb.patchbay.url}/api/usage/log/${row.request_id as string}`, { headers: { authorization: `Bearer ${rig.pb.patchbay.adminToken}` } });
    expect(((await detail.json()) as { adjustments: unknown }).adjustments).toEqual(JSON.parse(row.adjustments as string));
    // And the CSV export has the column.
    const csv = await (await fetch(`${rig.pb.patchbay.url}/api/usage/export?format=csv`, { headers: { authorization: `Bearer ${rig.pb.patchbay.adminToken}` } })).text();
    expect(csv.split('\r\n')[0].split(',')).toContain('adjustments');
    expect(csv).toContain('max_tokens=16384 (gpt-4o output limit; asked 32000)');
  });

  it('is lowered on /v1/chat/completions too (opencode and Qwen Code send 32,000), streamed', async () => {
    const response = await fetch(`${rig.pb.patchbay.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rig.pb.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o', max_tokens: 32000, stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect((lastUpstream('openai').body as { max_tokens: number }).max_tokens).toBe(16384);
    expect(response.headers.get('x-patchbay-adjusted')).toBe('max_tokens=16384 (gpt-4o output limit; asked 32000)');
  });

  it('keeps the caller’s own field name (max_completion_tokens) and leaves a value within the limit alone', async () => {
    const post = (body: Record<string, unknown>) =>
      fetch(`${rig.pb.patchbay.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${rig.pb.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const lowered = await post({ model: 'openai/gpt-4o', max_completion_tokens: 20000, messages: [{ role: 'user', content: 'Hello' }] });
    expect(lowered.status).toBe(200);
    expect(lowered.headers.get('x-patchbay-adjusted')).toBe('max_completion_tokens=16384 (gpt-4o output limit; asked 20000)');
    const kept = await post({ model: 'openai/gpt-4o', max_tokens: 1000, messages: [{ role: 'user', content: 'Hello' }] });
    expect(kept.status).toBe(200);
    expect((lastUpstream('openai').body as { max_tokens: number }).max_tokens).toBe(1000);
    expect(kept.headers.get('x-patchbay-adjusted')).toBeNull();
  });

  it('is lowered on /v1/completions and on /v1/responses (max_output_tokens)', async () => {
    // gpt-4o completes through chat: the chat request made of the prompt is what is lowered.
    const completion = await fetch(`${rig.pb.patchbay.url}/v1/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rig.pb.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o', max_tokens: 20000, prompt: 'Once upon a time' }),
    });
    expect(completion.status, await completion.clone().text()).toBe(200);
    expect((lastUpstream('openai').body as { max_tokens: number }).max_tokens).toBe(16384);
    expect(completion.headers.get('x-patchbay-adjusted')).toBe('max_tokens=16384 (gpt-4o output limit; asked 20000)');
    const responses = await fetch(`${rig.pb.patchbay.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rig.pb.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'groq/llama-3.3-70b-versatile', max_output_tokens: 40000, input: 'Hello' }),
    });
    expect(responses.status, await responses.clone().text()).toBe(200);
    expect((lastUpstream('groq').body as { max_tokens: number }).max_tokens).toBe(32768);
    expect(responses.headers.get('x-patchbay-adjusted')).toBe('max_output_tokens=32768 (llama-3.3-70b-versatile output limit; asked 40000)');
    // OpenAI's own Responses API gets the caller's body with only the model and the limit changed.
    const passed = await fetch(`${rig.pb.patchbay.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rig.pb.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/gpt-4o', max_output_tokens: 32000, input: 'Hello' }),
    });
    expect(passed.status, await passed.clone().text()).toBe(200);
    expect(lastUpstream('openai').body).toEqual({ model: 'gpt-4o', max_output_tokens: 16384, input: 'Hello' });
    expect(passed.headers.get('x-patchbay-adjusted')).toBe('max_output_tokens=16384 (gpt-4o output limit; asked 32000)');
  });

  it('uses the limit of the endpoint that answers when the first one fails (fallback)', async () => {
    rig.emulators.openai.inject({ status: 500, path: '/chat/completions', times: 3 });
    const response = await fetch(`${rig.pb.patchbay.url}/v1/messages`, {
      method: 'POST',
      headers: { ...HEADERS(rig.pb.key), 'x-patchbay-fallback': provider('groq').chat },
      body: JSON.stringify({ model: provider('openai').chat, max_tokens: 32000, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(response.headers.get('x-patchbay-provider')).toBe('groq');
    // gpt-4o was asked for its own limit; Llama 3.3 on Groq (32,768) for what the caller asked.
    expect((lastUpstream('openai').body as { max_tokens: number }).max_tokens).toBe(16384);
    expect((lastUpstream('groq').body as { max_tokens: number }).max_tokens).toBe(32000);
    expect(response.headers.get('x-patchbay-adjusted')).toBeNull();
  });
});

describe("Claude Code's connectivity probe", () => {
  it('HEAD and GET /api/hello answer 200 without credentials; the rest of /api still needs them', async () => {
    const head = await fetch(`${rig.pb.patchbay.url}/api/hello`, { method: 'HEAD', headers: { 'user-agent': 'Bun/1.3.0' } });
    expect(head.status).toBe(200);
    const get = await fetch(`${rig.pb.patchbay.url}/api/hello`);
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ ok: true });
    const other = await fetch(`${rig.pb.patchbay.url}/api/usage/log`);
    expect(other.status).toBe(401);
  });
});

describe('a prompt over the window on /v1/messages', () => {
  it("is refused in Anthropic's shape and words, so Claude Code compacts", async () => {
    const upstream = new OpenAiEmulator({ apiKey: 'sk-tiny' });
    const url = await upstream.start();
    // A model with a 300-token window, as a user declares a small local model.
    const pb = await startPatchbay({
      config: { providers: { tiny: { protocol: 'openai', baseUrl: `${url}/v1`, apiKeyEnv: 'TINY_KEY', models: [{ id: 'gpt-4o', contextWindow: 300, maxOutput: 100 }] } } },
      env: { TINY_KEY: 'sk-tiny' },
    });
    try {
      // Over 300 x 128 bytes: too long whatever the tokenizer says (no token is longer than 128 bytes), so the
      // refusal needs no count (which may time out on a busy machine and then lets the upstream decide).
      const prompt = Array.from({ length: 8000 }, (_, i) => `word${i}`).join(' ');
      const response = await fetch(`${pb.patchbay.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': pb.key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'tiny/gpt-4o', max_tokens: 32000, stream: true, messages: [{ role: 'user', content: prompt }] }),
      });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { type: string; error: { type: string; message: string } };
      expect(body).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(/^prompt is too long: \d+ tokens > 300 maximum$/) } });
      expect(Number(/: (\d+) tokens/.exec(body.error.message)![1])).toBeGreaterThan(300);
      expect(upstream.requests).toHaveLength(0);
    } finally {
      await pb.stop();
      await upstream.close();
    }
  });
});
