import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBadRequest, PROVIDERS, startRig, type Rig } from '../helpers/conformance-matrix.ts';

/**
 * A Codex CLI session through Patchbay, as Codex builds its requests (reference §4.2-4.3):
 * store false, stream true, the whole history every turn with function_call and reasoning items
 * replayed *without* their ids, include reasoning.encrypted_content, strict function tools,
 * prompt_cache_key, text.verbosity. Every turn must end with response.completed whose usage has
 * both detail objects, and whose output_item.done items are what Codex executes.
 */

let rig: Rig;
let client: OpenAI;

beforeAll(async () => {
  rig = await startRig();
  client = rig.client;
});
afterAll(() => rig.stop());

const SHELL = { type: 'function' as const, name: 'shell', description: 'Runs a command', strict: false, parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } }, required: ['command'], additionalProperties: false } };

/** One Codex turn: a streamed create; the events and the item list Codex keeps (output_item.done items). */
async function turn(model: string, input: unknown[]): Promise<{ types: string[]; items: Record<string, unknown>[]; completed: OpenAI.Responses.Response }> {
  const stream = await client.responses.create({
    model,
    instructions: 'You are Codex.',
    input: input as OpenAI.Responses.ResponseInput,
    tools: [SHELL],
    tool_choice: 'auto',
    parallel_tool_calls: false,
    reasoning: { effort: 'medium', summary: 'auto' },
    store: false,
    stream: true,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: 'conversation-1',
    text: { verbosity: 'medium' },
  });
  const types: string[] = [];
  const items: Record<string, unknown>[] = [];
  let completed: OpenAI.Responses.Response | null = null;
  for await (const event of stream) {
    types.push(event.type);
    if (event.type === 'response.output_item.done') items.push(event.item as unknown as Record<string, unknown>);
    if (event.type === 'response.completed') completed = event.response;
  }
  expect(completed).not.toBeNull();
  return { types, items, completed: completed! };
}

/** Codex's replay of an output item: the same item without its `id` (models.rs skips it). */
const replay = ({ id: _id, status: _status, ...item }: Record<string, unknown>) => item;

describe.each(PROVIDERS.map((p) => [p.name, p.chat] as const))('Codex session via %s', (name, model) => {
  it('turn 1 calls the tool, turn 2 (history replayed without ids, tool output added) answers; usage parses as Codex needs', async () => {
    const user = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List the files' }] };
    const first = await turn(model, [user]);
    expect(first.types[first.types.length - 1]).toBe('response.completed');
    const call = first.items.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'shell', call_id: expect.stringMatching(/./), arguments: expect.any(String) });
    expect(JSON.parse(call!.arguments as string)).toEqual({ command: 'command-value' });
    // response.completed lists every item, function calls included.
    expect(first.completed.output.map((item) => item.type)).toEqual(first.items.map((item) => item.type));
    for (const usage of [first.completed.usage!]) {
      expect(usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number), total_tokens: expect.any(Number), input_tokens_details: { cached_tokens: expect.any(Number) }, output_tokens_details: { reasoning_tokens: expect.any(Number) } });
    }
    if (name === 'openai') expect(first.items[0]).toMatchObject({ type: 'reasoning', encrypted_content: expect.stringMatching(/^gAAAA/) });

    const second = await turn(model, [user, ...first.items.map(replay), { type: 'function_call_output', call_id: call!.call_id, output: 'README.md\npackage.json' }]);
    expect(second.types[second.types.length - 1]).toBe('response.completed');
    const message = second.items.find((item) => item.type === 'message') as { content: { text: string }[] };
    expect(message.content[0].text).toBe('The tool returned README.md\npackage.json');
  });
});

const APPLY_PATCH = { type: 'custom' as const, name: 'apply_patch', description: 'Apply a patch to files.', format: { type: 'grammar' as const, syntax: 'lark' as const, definition: 'start: begin_patch hunk+ end_patch' } };

describe.each(PROVIDERS.filter((p) => p.name !== 'openai').map((p) => [p.name, p.chat] as const))("Codex's freeform apply_patch (a custom tool) via %s", (name, model) => {
  it('is offered as a function of one string with its grammar, answered as a custom_tool_call, and its output replayed', async () => {
    const before = rig.emulators[name].requests.length;
    const stream = client.responses.stream({ model, input: 'Fix the bug', tools: [APPLY_PATCH], tool_choice: 'required' });
    const inputs: string[] = [];
    stream.on('response.custom_tool_call_input.done', (event) => inputs.push(event.input));
    const first = await stream.finalResponse();
    const call = first.output.find((item) => item.type === 'custom_tool_call');
    expect(call).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch', input: 'input-value', call_id: expect.stringMatching(/./) });
    expect(inputs).toEqual(['input-value']);
    const sent = rig.emulators[name].requests.slice(before).map((r) => JSON.stringify(r.body));
    expect(sent.some((body) => body.includes('start: begin_patch hunk+ end_patch'))).toBe(true);
    const second = await client.responses.create({
      model,
      tools: [APPLY_PATCH],
      input: [{ role: 'user', content: 'Fix the bug' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: 'custom_tool_call_output', call_id: call!.type === 'custom_tool_call' ? call!.call_id : '', output: 'Done!' }],
    });
    expect(second.output_text).toBe('The tool returned Done!');
  });
});

it('an empty input array is a 400 naming input', async () => {
  await expectBadRequest(client.responses.create({ model: 'anthropic/claude-haiku-4-5-20251001', input: [] }), 'input');
});
