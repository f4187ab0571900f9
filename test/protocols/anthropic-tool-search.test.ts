import { describe, expect, it } from 'vitest';
import { decodeMessagesRequest, offeredTools } from '../../core/protocols/anthropic-messages/decode-request.ts';
import { messagesRequestSchema } from '../../core/protocols/anthropic-messages/request-schema.ts';
import { limitMaxTokens, limitNeutralMaxTokens } from '../../core/providers/limit-max-tokens.ts';
import { Adjustments } from '../../core/protocols/neutral/adjustments.ts';

const tool = (name: string, deferred = false) => ({ name, input_schema: { type: 'object', properties: {} }, ...(deferred ? { defer_loading: true } : {}) });
const TOOLS = [tool('Placeholder', true), tool('Bash'), tool('WebFetch', true), tool('Notebook', true)];
const user = (content: unknown) => ({ role: 'user', content });

describe('the tools a Messages request offers (Anthropic tool search semantics)', () => {
  it('offers the tools not deferred, in their order', () => {
    expect([...offeredTools({ tools: TOOLS, messages: [user('hi')] } as never)]).toEqual(['Bash']);
  });

  it('adds a deferred tool from a tool_reference, a replayed tool search result, or a tool_addition; a tool_removal takes one out', () => {
    const messages = [
      user('hi'),
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ToolSearch', input: {} }] },
      user([{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'tool_reference', tool_name: 'WebFetch' }] }]),
      { role: 'assistant', content: [{ type: 'tool_search_tool_result', tool_use_id: 's1', content: { type: 'tool_search_tool_search_result', tool_references: [{ type: 'tool_reference', tool_name: 'Notebook' }] } }] },
      { role: 'system', content: [{ type: 'tool_removal', tool: { type: 'tool_reference', name: 'Bash' } }, { type: 'tool_addition', tool: { type: 'mcp_toolset_reference', server_name: 'x' } }] },
      user('go on'),
    ];
    expect([...offeredTools({ tools: TOOLS, messages } as never)].sort()).toEqual(['Notebook', 'WebFetch']);
  });

  it('decodes tool changes and references without a refusal, a system message of changes only leaving no message', () => {
    const body = messagesRequestSchema.parse({
      model: 'openai/gpt-4o',
      max_tokens: 100,
      tools: TOOLS,
      messages: [
        user('hi'),
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] },
        user([{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'tool_reference', tool_name: 'WebFetch' }] }]),
        { role: 'system', content: [{ type: 'tool_addition', tool: { type: 'tool_reference', name: 'Notebook' } }] },
        user('go on'),
      ],
      output_config: { effort: 'low', format: { type: 'json_schema', schema: { type: 'object' } } },
      context_management: { edits: [] },
      thinking: { type: 'adaptive' },
    });
    const decoded = decodeMessagesRequest(body);
    expect(decoded.nativeOnly).toEqual([]);
    expect(decoded.request.tools.map((t) => t.name)).toEqual(['Bash', 'WebFetch', 'Notebook']);
    expect(decoded.request.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'user']);
    expect(decoded.request.messages[2].parts[0]).toMatchObject({ type: 'tool-result', content: [{ type: 'text', text: 'Tool "WebFetch" loaded; it is now available.' }] });
    expect(decoded.request.responseFormat).toEqual({ type: 'json', schema: { type: 'object' }, source: 'output_config.format.schema' });
    expect(decoded.options).toEqual({ effort: 'low', thinking: 'adaptive', contextManagement: true, leftOut: [] });
  });
});

describe('max_tokens within the endpoint output limit', () => {
  const endpoint = { model: 'gpt-4o', maxOutput: 16384 } as never;

  it('lowers a larger value and says so; leaves a smaller one, and any value where the limit is unknown', () => {
    const adjustments = new Adjustments();
    expect(limitMaxTokens(32000, { endpoint, adjustments }, 'max_tokens')).toBe(16384);
    expect(limitMaxTokens(1000, { endpoint, adjustments }, 'max_tokens')).toBe(1000);
    expect(limitMaxTokens(32000, { endpoint: { model: 'local', maxOutput: 0 } as never, adjustments }, 'max_tokens')).toBe(32000);
    expect(adjustments.adjusted).toEqual(['max_tokens=16384 (gpt-4o output limit; asked 32000)']);
  });

  it('keeps a thinking budget below the lowered limit, named by the caller field', () => {
    const adjustments = new Adjustments();
    const request = { model: 'm', system: [], messages: [], tools: [], stopSequences: [], maxTokens: 40000, maxTokensSource: 'max_output_tokens', thinking: { budgetTokens: 20000 } };
    expect(limitNeutralMaxTokens(request, { endpoint, adjustments })).toMatchObject({ maxTokens: 16384, thinking: { budgetTokens: 16383 } });
    expect(adjustments.adjusted).toEqual(['max_output_tokens=16384 (gpt-4o output limit; asked 40000)', 'thinking.budget_tokens=16383 (below max_output_tokens; asked 20000)']);
  });
});
