import { describe, expect, it } from 'vitest';
import { Adjustments } from '../../../core/protocols/neutral/adjustments.ts';
import { fitThinking, keepOwnThinking, thinkingConflict } from '../../../core/providers/anthropic/fit-thinking.ts';

const use = { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} };
const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] };
const own = { type: 'thinking', thinking: 'hmm', signature: 'EqQB' };
const enabled = { type: 'enabled', budget_tokens: 1024 };

describe('keepOwnThinking (replayed thinking on its way to an Anthropic upstream)', () => {
  it("keeps Anthropic's own blocks, opens its own sealed ones, and leaves out blocks sealed for another provider or unsigned", () => {
    const messages = [
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: [own, { type: 'thinking', thinking: 'g', signature: 'patchbay:google:EMU-SIG-1' }, { type: 'thinking', thinking: 'shown', signature: '' }, { type: 'thinking', thinking: 'mine', signature: 'patchbay:anthropic:c2ln' }, { type: 'redacted_thinking', data: 'patchbay:anthropic:redacted:ZGF0YQ' }, use],
      },
      result,
    ];
    const kept = keepOwnThinking(messages, 'anthropic');
    expect(kept.messages[1].content).toEqual([own, { type: 'thinking', thinking: 'mine', signature: 'c2ln' }, { type: 'redacted_thinking', data: 'ZGF0YQ' }, use]);
    expect(kept.leftOut).toEqual(['google']);
  });

  it('the same messages when there is nothing to leave out; a turn of nothing but foreign thinking goes whole', () => {
    const plain = [{ role: 'user', content: 'q' }, { role: 'assistant', content: [own, use] }, result];
    expect(keepOwnThinking(plain, 'anthropic').messages).toBe(plain);
    const only = [{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'thinking', thinking: 'g', signature: 'patchbay:google:x' }] }, { role: 'user', content: 'again' }];
    expect(keepOwnThinking(only, 'anthropic').messages.map((m) => m.role)).toEqual(['user', 'user']);
  });
});

describe('fitThinking (a tool turn another provider made is answered without thinking)', () => {
  it('turns enabled thinking off, with its clear_thinking edit, when the turn a tool result answers does not begin with thinking, and says so', () => {
    const body = { thinking: enabled, context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] }, messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: [use] }, result] };
    expect(thinkingConflict(body)).toBe(1);
    const call = { adjustments: new Adjustments() };
    const fitted = fitThinking(body, call);
    expect(fitted).toEqual({ messages: body.messages });
    expect(call.adjustments.dropped).toEqual(['thinking']);
  });

  it('leaves the body alone when that turn begins with thinking, when the user asked anew, and with adaptive thinking', () => {
    const call = { adjustments: new Adjustments() };
    const begun = { thinking: enabled, messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: [own, use] }, result] };
    expect(fitThinking(begun, call)).toBe(begun);
    const anew = { thinking: enabled, messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: [use] }, result, { role: 'assistant', content: 'done' }, { role: 'user', content: 'more' }] };
    expect(fitThinking(anew, call)).toBe(anew);
    const adaptive = { thinking: { type: 'adaptive' }, messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: [use] }, result] };
    expect(fitThinking(adaptive, call)).toBe(adaptive);
    expect(call.adjustments.empty).toBe(true);
  });
});
