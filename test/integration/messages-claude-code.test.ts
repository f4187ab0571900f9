import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS, startRig, type Rig } from '../helpers/conformance-matrix.ts';

/**
 * A request shaped like Claude Code's (ingress reference §2): `/v1/messages?beta=true`, the key
 * as a Bearer token, anthropic-beta values, system blocks with cache_control, adaptive thinking,
 * metadata.user_id, tools with extra fields, a mid-conversation system message, a streamed
 * answer. Every provider must serve it with a well-formed event stream.
 */

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(() => rig.stop());

function claudeCodeBody(model: string): Record<string, unknown> {
  return {
    model,
    max_tokens: 32000,
    stream: true,
    system: [
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." },
      { type: 'text', text: 'Be concise.', cache_control: { type: 'ephemeral' } },
    ],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Earlier question', cache_control: { type: 'ephemeral' } }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Earlier answer.' }] },
      // Mid-conversation system messages (Messages API, 2026-05).
      { role: 'system', content: 'The user switched to plan mode.' },
      { role: 'user', content: [{ type: 'text', text: 'Fix the bug' }] },
    ],
    tools: [{ name: 'Read', description: 'Reads a file', input_schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'], additionalProperties: false } }],
    metadata: { user_id: `user_${'a'.repeat(64)}_account__session_0b0c1d2e-3f40-4152-8a9b-0c1d2e3f4051` },
    thinking: { type: 'adaptive' },
    context_management: { edits: [] },
  };
}

/** Parses an SSE body into [event name, data] pairs, checking that each data `type` equals its event name. */
function events(text: string): [string, Record<string, any>][] {
  return text
    .split('\n\n')
    .filter((e) => e.trim() !== '')
    .map((e) => {
      const name = /^event: (.+)$/m.exec(e)![1];
      const data = JSON.parse(/^data: (.+)$/m.exec(e)![1]) as Record<string, any>;
      expect(data.type).toBe(name);
      return [name, data];
    });
}

describe.each(PROVIDERS.filter((p) => p.name !== 'anthropic').map((p) => [p.name, p] as const))('a Claude Code request via %s', (_name, provider) => {
  it('streams a well-formed Messages event sequence calling the tool', async () => {
    const response = await fetch(`${rig.pb.patchbay.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rig.pb.key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14', 'x-claude-code-session-id': 's1' },
      body: JSON.stringify(claudeCodeBody(provider.chat)),
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const list = events(text);
    const names = list.map(([name]) => name);
    expect(names[0]).toBe('message_start');
    expect(list[0][1].message.usage.input_tokens).toBeGreaterThan(0);
    expect(names.slice(-2)).toEqual(['message_delta', 'message_stop']);
    // One block open at a time, indexes 0, 1, ... in order.
    let open: number | null = null;
    let next = 0;
    for (const [name, data] of list) {
      if (name === 'content_block_start') {
        expect(open).toBeNull();
        expect(data.index).toBe(next++);
        open = data.index;
      } else if (name === 'content_block_delta') {
        expect(data.index).toBe(open);
      } else if (name === 'content_block_stop') {
        expect(data.index).toBe(open);
        open = null;
      }
    }
    expect(open).toBeNull();
    const tool = list.find(([name, data]) => name === 'content_block_start' && data.content_block.type === 'tool_use');
    expect(tool?.[1].content_block).toMatchObject({ name: 'Read', input: {} });
    expect(tool?.[1].content_block.id).toMatch(/^[a-zA-Z0-9_-]+$/);
    const json = list.filter(([name, data]) => name === 'content_block_delta' && data.index === tool![1].index).map(([, data]) => data.delta.partial_json).join('');
    expect(JSON.parse(json)).toEqual({ file_path: 'file_path-value' });
    const delta = list[list.length - 2][1];
    expect(delta.delta.stop_reason).toBe('tool_use');
    expect(delta.usage.input_tokens).toBeGreaterThan(0);
    expect(delta.usage.output_tokens).toBeGreaterThan(0);
  });
});
