import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUsageRows, PROVIDERS, startRig, usageRowCount, type ProviderName, type Rig } from '../helpers/conformance-matrix.ts';
import { CODEX_LITE_TOOLS_ITEM, CODEX_LITE_UPSTREAM_TOOL_NAMES, codexLiteBody, codexTurn, replayed, userMessage } from '../helpers/codex-request.ts';

/**
 * Codex CLI 0.171.0's request (test/helpers/codex-request.ts codexLiteBody): its tools declared in
 * an `additional_tools` input item (OpenAI's AdditionalToolsItemParam), the freeform `exec` tool
 * inside the `functions` namespace. Passed to OpenAI untouched; elsewhere the item's tools are
 * offered as functions, and a call of `exec` comes back as the custom_tool_call Codex runs.
 */

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(() => rig.stop());

type Body = Record<string, any>;
const list = (value: unknown): Body[] => (Array.isArray(value) ? (value as Body[]) : []);

/** The functions an upstream was offered, by name, with their input schema, from its own wire. */
function offered(provider: ProviderName, body: Body): { name: string; description: string; schema: Body }[] {
  if (provider === 'anthropic') return list(body.tools).map((t) => ({ name: t.name, description: t.description ?? '', schema: t.input_schema }));
  if (provider === 'google') return list(body.tools).flatMap((t) => list(t.functionDeclarations)).map((d) => ({ name: d.name, description: d.description ?? '', schema: d.parameters }));
  return list(body.tools).map((t) => ({ name: t.function.name, description: t.function.description ?? '', schema: t.function.parameters }));
}

/** The tool calls replayed to an upstream, with their arguments, and the tool results' texts. */
function history(provider: ProviderName, body: Body): { calls: { name: string; args: unknown }[]; results: string[] } {
  if (provider === 'anthropic') {
    const blocks = list(body.messages).flatMap((m) => list(m.content));
    return { calls: blocks.filter((b) => b.type === 'tool_use').map((b) => ({ name: b.name, args: b.input })), results: blocks.filter((b) => b.type === 'tool_result').map((b) => JSON.stringify(b.content)) };
  }
  if (provider === 'google') {
    const parts = list(body.contents).flatMap((c) => list(c.parts));
    return { calls: parts.filter((p) => p.functionCall).map((p) => ({ name: p.functionCall.name, args: p.functionCall.args })), results: parts.filter((p) => p.functionResponse).map((p) => JSON.stringify(p.functionResponse.response)) };
  }
  const messages = list(body.messages);
  return {
    calls: messages.flatMap((m) => list(m.tool_calls)).map((c) => ({ name: c.function.name, args: JSON.parse(c.function.arguments) })),
    results: messages.filter((m) => m.role === 'tool').map((m) => JSON.stringify(m.content)),
  };
}

const ask = userMessage('Use exec to list the files');

describe.each(PROVIDERS.filter((p) => p.name !== 'openai').map((p) => [p.name, p.chat] as const))('Codex 0.171.0 requests via %s', (name, model) => {
  const lastBody = () => rig.emulators[name].requests.at(-1)!.body as Body;

  it("offers the additional_tools item's tools (the namespace flattened, exec a function of one string with its grammar); a call of exec comes back as a custom_tool_call in its namespace, and its replay with the output reaches the upstream", async () => {
    const first = await codexTurn(rig.pb.patchbay.url, rig.pb.key, codexLiteBody(model, [ask]));
    expect(first.error).toBeNull();
    expect(first.status).toBe(200);
    const tools = offered(name, lastBody());
    expect(tools.map((t) => t.name)).toEqual(CODEX_LITE_UPSTREAM_TOOL_NAMES);
    expect(JSON.stringify(tools[0].schema)).toContain('"input"');
    expect(tools[0].description).toContain('PRAGMA_LINE');

    const call = first.items.find((item) => item.type === 'custom_tool_call')!;
    expect(call).toMatchObject({ type: 'custom_tool_call', namespace: 'functions', name: 'exec', input: 'input-value', call_id: expect.stringMatching(/./) });
    expect(first.types).toEqual(expect.arrayContaining(['response.custom_tool_call_input.done']));

    const output = { type: 'custom_tool_call_output', call_id: call.call_id, output: 'README.md\nsrc' };
    const second = await codexTurn(rig.pb.patchbay.url, rig.pb.key, codexLiteBody(model, [ask, ...first.items.map(replayed), output]));
    expect(second.status).toBe(200);
    expect((second.items.find((item) => item.type === 'message') as { content: { text: string }[] }).content[0].text).toContain('README.md');
    const replay = history(name, lastBody());
    expect(replay.calls).toEqual([{ name: 'functions__exec', args: { input: 'input-value' } }]);
    expect(replay.results.join(' ')).toContain('README.md');
  });

  it('names what it left out (reasoning.context, text.verbosity, client_metadata) and never refuses the item', async () => {
    const rows = usageRowCount(rig.pb);
    const turn = await codexTurn(rig.pb.patchbay.url, rig.pb.key, codexLiteBody(model, [userMessage('Say hello')], { tool_choice: 'none' }));
    expect(turn.status).toBe(200);
    expect(turn.headers.get('x-patchbay-dropped')!.split(', ')).toEqual(expect.arrayContaining(['client_metadata', 'text.verbosity', 'reasoning.context']));
    expect(JSON.stringify(lastBody())).not.toContain('additional_tools');
    const [row] = await newUsageRows(rig.pb, rows);
    expect(row).toMatchObject({ endpoint: 'responses', provider: name, status: 200 });
  });
});

describe('Codex 0.171.0 requests via openai (pass-through)', () => {
  it('reach OpenAI with the additional_tools item as Codex wrote it, and exec is called as a custom tool in its namespace', async () => {
    const emulator = rig.emulators.openai;
    const model = PROVIDERS.find((p) => p.name === 'openai')!.chat;
    const turn = await codexTurn(rig.pb.patchbay.url, rig.pb.key, codexLiteBody(model, [ask]));
    expect(turn.status).toBe(200);
    const sent = emulator.requests.at(-1)!.body as Body;
    expect(sent.input[0]).toEqual(CODEX_LITE_TOOLS_ITEM);
    expect(sent.reasoning).toEqual({ effort: 'low', context: 'all_turns' });
    expect(sent).not.toHaveProperty('tools');
    expect(turn.items.find((item) => item.type === 'custom_tool_call')).toMatchObject({ namespace: 'functions', name: 'exec' });
    expect(turn.headers.get('x-patchbay-dropped')).toBeNull();
  });
});
