import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUsageRows, PROVIDERS, startRig, usageRowCount, type ProviderName, type Rig } from '../helpers/conformance-matrix.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';
import { CODEX_TOOLS, CODEX_UPSTREAM_TOOL_NAMES, codexBody, codexTurn, replayed, userMessage, WEB_SEARCH_INDEX } from '../helpers/codex-request.ts';

/**
 * Codex CLI's own request (test/helpers/codex-request.ts: its headers, client_metadata,
 * prompt_cache_key, include, and its tool list with the multi_agent_v1 namespace and web_search)
 * through the real server to each provider's emulator. Asserted on what the emulators received and
 * on the items Codex keeps.
 */

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(() => rig.stop());

type Body = Record<string, unknown>;
const list = (value: unknown): Body[] => (Array.isArray(value) ? (value as Body[]) : []);

/** The tool names an upstream was offered, from its own wire. */
function offeredTools(provider: ProviderName, body: Body): string[] {
  if (provider === 'anthropic') return list(body.tools).map((t) => String(t.name));
  if (provider === 'google') return list(body.tools).flatMap((t) => list(t.functionDeclarations ?? t.function_declarations)).map((d) => String(d.name));
  return list(body.tools).map((t) => String((t.function as Body).name));
}

/** The tool calls in the history an upstream received, and the call ids its tool results answer. */
function replayedCalls(provider: ProviderName, body: Body): { calls: { name: string; args: unknown }[]; results: string[] } {
  if (provider === 'anthropic') {
    const blocks = list(body.messages).flatMap((m) => list(m.content));
    return { calls: blocks.filter((b) => b.type === 'tool_use').map((b) => ({ name: String(b.name), args: b.input })), results: blocks.filter((b) => b.type === 'tool_result').map((b) => String(b.tool_use_id)) };
  }
  if (provider === 'google') {
    const parts = list(body.contents).flatMap((c) => list(c.parts));
    const calls = parts.map((p) => (p.functionCall ?? p.function_call) as Body | undefined).filter((c): c is Body => c !== undefined);
    const results = parts.map((p) => (p.functionResponse ?? p.function_response) as Body | undefined).filter((r): r is Body => r !== undefined);
    return { calls: calls.map((c) => ({ name: String(c.name), args: c.args })), results: results.map((r) => String(r.name)) };
  }
  const messages = list(body.messages);
  const calls = messages.flatMap((m) => list(m.tool_calls)).map((c) => c.function as Body);
  return { calls: calls.map((c) => ({ name: String(c.name), args: JSON.parse(String(c.arguments)) })), results: messages.filter((m) => m.role === 'tool').map((m) => String(m.tool_call_id)) };
}

const TRANSLATED = PROVIDERS.filter((p) => p.name !== 'openai');

describe.each(TRANSLATED.map((p) => [p.name, p.chat] as const))('Codex CLI requests via %s', (name, model) => {
  const emulator = () => rig.emulators[name];
  const lastBody = () => emulator().requests[emulator().requests.length - 1].body as Body;

  it('a text turn answers (tool_choice none: the emulated models call a tool whenever they may)', async () => {
    const before = emulator().requests.length;
    const turn = await codexTurn(rig.pb.patchbay.url, rig.pb.key, codexBody(model, [userMessage('Say hello')], { tool_choice: 'none' }));
    expect(turn.status).toBe(200);
    expect(turn.types[turn.types.length - 1]).toBe('response.completed');
    const message = turn.items.find((item) => item.type === 'message') as { content: { text: string }[] };
    expect(message.content[0].text).toBe('You said: Say hello');
    expect(emulator().requests.length).toBe(before + 1);
  });

  it('the upstream is offered every function, the namespace flattened, web_search left out; a call of a namespaced function comes back under its name and namespace, and its replay reaches the upstream under the flat name', async () => {
    const ask = userMessage('Delegate the review with spawn_agent');
    const first = await codexTurn(rig.pb.patchbay.url, rig.pb.key, codexBody(model, [ask]));
    expect(first.status).toBe(200);
    expect(offeredTools(name, lastBody())).toEqual(CODEX_UPSTREAM_TOOL_NAMES);
    const call = first.items.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1', call_id: expect.stringMatching(/./) });
    expect(JSON.parse(call.arguments as string)).toEqual({ message: 'message-value' });
    expect((first.completed!.output as Body[]).find((item) => item.type === 'function_call')).toMatchObject({ name: 'spawn_agent', namespace: 'multi_agent_v1' });

    const second = await codexTurn(rig.pb.patchbay.url, rig.pb.key, codexBody(model, [ask, ...first.items.map(replayed), { type: 'function_call_output', call_id: call.call_id, output: 'agent-7 started' }]));
    expect(second.status).toBe(200);
    const answer = second.items.find((item) => item.type === 'message') as { content: { text: string }[] };
    expect(answer.content[0].text).toBe('The tool returned agent-7 started');
    const history = replayedCalls(name, lastBody());
    expect(history.calls).toEqual([{ name: 'multi_agent_v1__spawn_agent', args: { message: 'message-value' } }]);
    // Gemini's function responses are matched by name; the others by call id.
    expect(history.results).toHaveLength(1);
    if (name === 'google') expect(history.results).toEqual(['multi_agent_v1__spawn_agent']);
  });

  it('a plain function call comes back without a namespace', async () => {
    const turn = await codexTurn(rig.pb.patchbay.url, rig.pb.key, codexBody(model, [userMessage('List the files')]));
    const call = turn.items.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ name: 'exec_command' });
    expect(call).not.toHaveProperty('namespace');
  });

  it('tool_choice naming a namespaced function forces its flat name upstream', async () => {
    const turn = await codexTurn(rig.pb.patchbay.url, rig.pb.key, codexBody(model, [userMessage('Go')], { tool_choice: { type: 'function', name: 'wait_agent', namespace: 'multi_agent_v1' } }));
    expect(turn.status).toBe(200);
    expect(turn.items.find((item) => item.type === 'function_call')).toMatchObject({ name: 'wait_agent', namespace: 'multi_agent_v1' });
  });

  it('web_search, client_metadata and prompt_cache_key are left out and said so in X-Patchbay-Dropped and on the usage row; x-codex headers and originator are fine', async () => {
    const rows = usageRowCount(rig.pb);
    const turn = await codexTurn(rig.pb.patchbay.url, rig.pb.key, codexBody(model, [userMessage('List the files')]));
    expect(turn.status).toBe(200);
    const dropped = turn.headers.get('x-patchbay-dropped')!.split(', ');
    expect(dropped).toEqual(expect.arrayContaining(['tools[web_search]', 'client_metadata', 'prompt_cache_key']));
    const sent = JSON.stringify(lastBody());
    for (const absent of ['web_search', 'prompt_cache_key', 'client_metadata', 'x-codex-installation-id']) expect(sent).not.toContain(absent);
    const [row] = await newUsageRows(rig.pb, rows);
    expect(JSON.parse(String(row.adjustments))).toMatchObject({ dropped: expect.arrayContaining(['tools[web_search]', 'client_metadata', 'prompt_cache_key']) });
  });

  it('a forced web_search is refused with a 400 naming the tool, before the upstream is called', async () => {
    const before = emulator().requests.length;
    const turn = await codexTurn(rig.pb.patchbay.url, rig.pb.key, codexBody(model, [userMessage('Search the web')], { tool_choice: { type: 'web_search' } }));
    expect(turn.status).toBe(400);
    expect(turn.error).toMatchObject({ param: `tools[${WEB_SEARCH_INDEX}].type` });
    expect(String(turn.error!.message)).toContain('web_search');
    expect(emulator().requests.length).toBe(before);
  });
});

describe('Codex CLI requests via openai (pass-through)', () => {
  const model = PROVIDERS.find((p) => p.name === 'openai')!.chat;

  it('reach OpenAI as Codex wrote them, and a namespaced call comes back with its namespace', async () => {
    const emulator = rig.emulators.openai;
    const ask = userMessage('Delegate the review with spawn_agent');
    const body = codexBody(model, [ask]);
    const first = await codexTurn(rig.pb.patchbay.url, rig.pb.key, body);
    expect(first.status).toBe(200);
    const sent = emulator.requests[emulator.requests.length - 1].body as Body;
    expect(sent.tools).toEqual(CODEX_TOOLS);
    expect(sent).toMatchObject({ client_metadata: body.client_metadata, prompt_cache_key: body.prompt_cache_key, include: ['reasoning.encrypted_content'] });
    const call = first.items.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ name: 'spawn_agent', namespace: 'multi_agent_v1' });

    const second = await codexTurn(rig.pb.patchbay.url, rig.pb.key, codexBody(model, [ask, ...first.items.map(replayed), { type: 'function_call_output', call_id: call.call_id, output: 'agent-7 started' }]));
    expect(second.status).toBe(200);
    const replay = (emulator.requests[emulator.requests.length - 1].body as Body).input as Body[];
    expect(replay.find((item) => item.type === 'function_call')).toMatchObject({ name: 'spawn_agent', namespace: 'multi_agent_v1' });
    expect(first.headers.get('x-patchbay-dropped')).toBeNull();
    expect(second.headers.get('x-patchbay-dropped')).toBeNull();
  });
});

describe('Codex CLI requests via your own OpenAI-compatible endpoint', () => {
  const local = new OpenAiEmulator({ apiKey: 'sk-local', chatModels: ['qwen3-coder'], completionModels: [], embeddingDimensions: {} });
  let pb: TestPatchbay;
  beforeAll(async () => {
    const url = await local.start();
    pb = await startPatchbay({ config: { providers: { local: { baseUrl: `${url}/v1`, apiKeyEnv: 'LOCAL_KEY', models: [{ id: 'qwen3-coder', contextWindow: 131072, capabilities: ['chat', 'tools', 'streaming'] }] } } }, env: { LOCAL_KEY: 'sk-local' } });
  });
  afterAll(async () => {
    await pb.stop();
    await local.close();
  });

  it('gets prompt_cache_key as the chat field OpenAI defines; web_search and client_metadata are left out and said so', async () => {
    const turn = await codexTurn(pb.patchbay.url, pb.key, codexBody('local/qwen3-coder', [userMessage('Delegate the review with spawn_agent')]));
    expect(turn.error).toBeNull();
    expect(turn.status).toBe(200);
    expect(turn.items.find((item) => item.type === 'function_call')).toMatchObject({ name: 'spawn_agent', namespace: 'multi_agent_v1' });
    const sent = local.requests[local.requests.length - 1].body as Body;
    expect(sent.prompt_cache_key).toBe(codexBody('m', []).prompt_cache_key);
    expect(offeredTools('groq', sent)).toEqual(CODEX_UPSTREAM_TOOL_NAMES);
    expect(turn.headers.get('x-patchbay-dropped')!.split(', ')).toEqual(['tools[web_search]', 'client_metadata']);
  });
});
