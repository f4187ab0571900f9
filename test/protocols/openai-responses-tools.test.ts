import { describe, expect, it } from 'vitest';
import { decodeResponsesRequest } from '../../core/protocols/openai-responses/decode-request.ts';
import { createResponsesEncodeState, encodeResponse } from '../../core/protocols/openai-responses/encode-stream.ts';
import { responsesRequestSchema } from '../../core/protocols/openai-responses/request-schema.ts';
import { flatToolName } from '../../core/protocols/openai-responses/tool-names.ts';

const decode = (body: unknown) => decodeResponsesRequest(responsesRequestSchema.parse(body));
const fn = (name: string) => ({ type: 'function', name, parameters: { type: 'object', properties: {} } });
const namespace = (name: string, ...tools: unknown[]) => ({ type: 'namespace', name, description: 'A group.', tools });

describe('flatToolName (a namespaced function as one upstream tool name)', () => {
  it("is Codex's own namespace__name when that is a name every upstream takes", () => {
    expect(flatToolName({ namespace: 'multi_agent_v1', name: 'spawn_agent' })).toBe('multi_agent_v1__spawn_agent');
    expect(flatToolName({ namespace: 'mcp__node_repl__', name: '_js' })).toBe('mcp__node_repl__js');
  });

  it('is cleaned, cut to 64 characters and made unique by a hash when it is not', () => {
    const long = flatToolName({ namespace: 'a'.repeat(40), name: 'b'.repeat(40) });
    const other = flatToolName({ namespace: 'a'.repeat(40), name: `${'b'.repeat(39)}c` });
    const dotted = flatToolName({ namespace: 'mcp.server', name: '9 lives' });
    for (const name of [long, other, dotted]) expect(name).toMatch(/^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/);
    expect(long).not.toBe(other);
    expect(dotted).toMatch(/^mcp_server__9_lives_[0-9a-f]{8}$/);
    expect(flatToolName({ namespace: 'mcp.server', name: '9 lives' })).toBe(dotted);
  });
});

describe('decode-request: namespace and built-in tools', () => {
  it("offers a namespace's functions under their flat names, and remembers which is which", () => {
    const { request, toolNames, nativeOnly } = decode({ model: 'm', input: 'x', tools: [fn('exec_command'), namespace('multi_agent_v1', fn('spawn_agent'), { type: 'custom', name: 'patch' })] });
    expect(nativeOnly).toEqual([]);
    expect(request.tools.map((t) => t.name)).toEqual(['exec_command', 'multi_agent_v1__spawn_agent', 'multi_agent_v1__patch']);
    expect(toolNames.namespaced.get('multi_agent_v1__spawn_agent')).toEqual({ namespace: 'multi_agent_v1', name: 'spawn_agent' });
    expect([...toolNames.custom]).toEqual(['multi_agent_v1__patch']);
  });

  it('a replayed call with a namespace goes upstream under the flat name; tool_choice with a namespace too', () => {
    const { request } = decode({
      model: 'm',
      tools: [namespace('multi_agent_v1', fn('spawn_agent'))],
      tool_choice: { type: 'function', name: 'spawn_agent', namespace: 'multi_agent_v1' },
      input: [
        { role: 'user', content: 'go' },
        { type: 'function_call', call_id: 'c1', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'ok' },
      ],
    });
    expect(request.messages[1].parts[0]).toMatchObject({ type: 'tool-call', id: 'c1', name: 'multi_agent_v1__spawn_agent' });
    expect(request.toolChoice).toEqual({ type: 'tool', name: 'multi_agent_v1__spawn_agent', parallel: true });
  });

  it('two tools under one upstream name are refused for a translated upstream, naming the second', () => {
    const { nativeOnly } = decode({ model: 'm', input: 'x', tools: [fn('ns__f'), namespace('ns', fn('f'))] });
    expect(nativeOnly).toEqual([{ param: 'tools[1].tools[0].name', what: expect.stringContaining('"ns__f"') }]);
  });

  it('a tool of another kind inside a namespace is refused naming it', () => {
    const { nativeOnly } = decode({ model: 'm', input: 'x', tools: [namespace('ns', { type: 'web_search' })] });
    expect(nativeOnly).toEqual([{ param: 'tools[0].tools[0].type', what: expect.any(String) }]);
  });

  it('built-in tools not forced are set aside; forced by tool_choice (or "required" with nothing else) they are refused naming the tool', () => {
    const offered = { model: 'm', input: 'x', tools: [fn('f'), { type: 'web_search', external_web_access: false }, { type: 'file_search', vector_store_ids: ['v'] }] };
    const free = decode(offered);
    expect(free.nativeOnly).toEqual([]);
    expect(free.builtIns).toEqual([{ param: 'tools[1]', type: 'web_search' }, { param: 'tools[2]', type: 'file_search' }]);
    expect(free.request.tools.map((t) => t.name)).toEqual(['f']);
    expect(decode({ ...offered, tool_choice: { type: 'file_search' } }).nativeOnly).toEqual([{ param: 'tools[2].type', what: expect.stringContaining('file_search') }]);
    expect(decode({ ...offered, tool_choice: { type: 'code_interpreter' } }).nativeOnly).toEqual([{ param: 'tool_choice.type', what: expect.stringContaining('code_interpreter') }]);
    expect(decode({ ...offered, tools: offered.tools.slice(1), tool_choice: 'required' }).nativeOnly).toEqual([{ param: 'tools[0].type', what: expect.stringContaining('web_search') }]);
  });
});

describe('encode-stream: a call of a namespaced function', () => {
  it('is a function_call item with the function name and its namespace, in the events and in the final output', () => {
    const { toolNames } = decode({ model: 'm', input: 'x', tools: [namespace('multi_agent_v1', fn('spawn_agent'))] });
    const state = createResponsesEncodeState({ id: 'resp_abc', model: 'm' }, 'anthropic', toolNames);
    const response = encodeResponse(
      [
        { type: 'tool-call-start', id: 'call_1', name: 'multi_agent_v1__spawn_agent' },
        { type: 'tool-call-delta', argumentsDelta: '{"message":"hi"}' },
        { type: 'finish', reason: 'tool-calls', usage: null },
      ],
      state,
    );
    expect(response!.output).toEqual([{ id: 'fc_abc_0', type: 'function_call', status: 'completed', arguments: '{"message":"hi"}', call_id: 'call_1', name: 'spawn_agent', namespace: 'multi_agent_v1' }]);
  });
});

describe('decode-request: fields no translated upstream takes', () => {
  it('are listed as the caller wrote them; reasoning.encrypted_content, metadata and store are not', () => {
    const { leftOut, extras } = decode({
      model: 'm',
      input: 'x',
      client_metadata: { thread_id: 't' },
      prompt_cache_key: 'thread-1',
      include: ['reasoning.encrypted_content', 'message.output_text.logprobs'],
      text: { verbosity: 'low' },
      service_tier: 'flex',
      truncation: 'auto',
      metadata: { a: 'b' },
      store: false,
    });
    expect(leftOut).toEqual(['client_metadata', 'service_tier', 'text.verbosity', 'truncation', 'include[message.output_text.logprobs]']);
    expect(extras.prompt_cache_key).toBe('thread-1');
    expect(decode({ model: 'm', input: 'x', truncation: 'disabled' }).leftOut).toEqual([]);
  });
});

describe('decode-request: additional_tools items and records of built-in tool runs', () => {
  it("offers an additional_tools item's tools after the request's own, named by their place in the input", () => {
    const { request, toolNames, nativeOnly, builtIns } = decode({
      model: 'm',
      tools: [fn('first')],
      input: [{ type: 'additional_tools', id: 'at_1', role: 'developer', tools: [namespace('functions', { type: 'custom', name: 'exec' }, fn('wait')), { type: 'web_search' }] }, { role: 'user', content: 'go' }],
    });
    expect(nativeOnly).toEqual([]);
    expect(request.tools.map((t) => t.name)).toEqual(['first', 'functions__exec', 'functions__wait']);
    expect(request.tools[1].inputSchema).toMatchObject({ properties: { input: { type: 'string' } }, required: ['input'] });
    expect([...toolNames.custom]).toEqual(['functions__exec']);
    expect(builtIns).toEqual([{ param: 'input[0].tools[1]', type: 'web_search' }]);
    expect(request.messages).toEqual([{ role: 'user', parts: [{ type: 'text', text: 'go' }] }]);
  });

  it('leaves out a built-in tool run (OpenAI ran it; its findings are in the messages) and names it; an item type nothing can read is still refused', () => {
    const { request, leftOut, nativeOnly } = decode({
      model: 'm',
      input: [
        { role: 'user', content: 'Find it' },
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Found.' }] },
        { type: 'item_reference', id: 'msg_1' },
      ],
    });
    expect(leftOut).toEqual(['input[web_search_call]']);
    expect(request.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(nativeOnly).toEqual([{ param: 'input[3].type', what: 'replay an input item of type "item_reference"' }]);
  });
});
