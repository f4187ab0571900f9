import { describe, expect, it } from 'vitest';
import { decodeMessagesRequest } from '../../core/protocols/anthropic-messages/decode-request.ts';
import type { MessagesRequestBody } from '../../core/protocols/anthropic-messages/request-schema.ts';
import { lateSystemMessages } from '../../core/protocols/neutral/late-system-messages.ts';
import type { NeutralMessage } from '../../core/protocols/neutral/neutral-request.ts';

const text = (role: NeutralMessage['role'], value: string, source?: string): NeutralMessage => ({ role, parts: [{ type: 'text', text: value }], ...(source ? { source } : {}) });

describe('lateSystemMessages', () => {
  it('lists the system messages after an answer, by the caller\'s field; those before the first answer mean the same hoisted', () => {
    const messages = [text('system', 'lead', 'messages[0]'), text('user', 'hi', 'messages[1]'), text('system', 'environment', 'messages[2]'), text('assistant', 'hello', 'messages[3]'), text('system', 'plan mode', 'messages[4]'), text('user', 'go', 'messages[5]')];
    expect(lateSystemMessages({ messages })).toEqual(['messages[4]']);
    expect(lateSystemMessages({ messages: messages.slice(0, 3) })).toEqual([]);
  });

  it('names a message without a source by its position, and skips an empty one', () => {
    expect(lateSystemMessages({ messages: [text('assistant', 'a'), { role: 'system', parts: [] }, text('system', 'b')] })).toEqual(['messages[2]']);
  });
});

describe("a message's own output_config (Claude Code's per-turn-control beta)", () => {
  const body = (top: Record<string, unknown> | undefined, own: Record<string, unknown>) =>
    ({ model: 'm', max_tokens: 100, ...(top ? { output_config: top } : {}), messages: [{ role: 'user', content: 'hi' }, { role: 'system', content: 'env', output_config: own }] }) as unknown as MessagesRequestBody;

  it("is the request's effort when it agrees, or when the request gives none", () => {
    expect(decodeMessagesRequest(body({ effort: 'medium' }, { effort: 'medium' })).options).toMatchObject({ effort: 'medium', leftOut: [] });
    expect(decodeMessagesRequest(body(undefined, { effort: 'low' })).options).toMatchObject({ effort: 'low', leftOut: [] });
  });

  it('is named as left out where it says something else', () => {
    expect(decodeMessagesRequest(body({ effort: 'high' }, { effort: 'low', format: { type: 'json_schema' } })).options).toMatchObject({ effort: 'high', leftOut: ['messages[1].output_config.effort', 'messages[1].output_config.format'] });
  });
});
