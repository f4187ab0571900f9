import { describe, expect, it } from 'vitest';
import type { ResolvedProvider } from '../../core/config/load-config.ts';
import { Adjustments } from '../../core/protocols/neutral/adjustments.ts';
import type { NeutralRequest } from '../../core/protocols/neutral/neutral-request.ts';
import { keepOwnReasoning } from '../../core/providers/keep-own-reasoning.ts';

const call = (name: string) => ({ provider: { name } as ResolvedProvider, adjustments: new Adjustments() });

const request: NeutralRequest = {
  model: 'm',
  system: [],
  tools: [],
  stopSequences: [],
  messages: [
    { role: 'user', parts: [{ type: 'text', text: 'q' }] },
    { role: 'assistant', parts: [{ type: 'reasoning', text: 'a', signature: 'sigA' }, { type: 'tool-call', id: 't1', name: 'f', input: {} }] },
    { role: 'user', parts: [{ type: 'tool-result', toolCallId: 't1', content: [], isError: false }] },
    { role: 'assistant', parts: [{ type: 'reasoning', text: 'g', signature: 'sigG', signedBy: 'google' }, { type: 'redacted-reasoning', data: 'r', signedBy: 'anthropic' }, { type: 'reasoning', text: 'shown only' }, { type: 'tool-call', id: 't2', name: 'f', input: {} }] },
  ],
};

describe('keepOwnReasoning (a signature goes back only to the provider that made it)', () => {
  it("keeps this provider's sealed reasoning, leaves out every other signed part and says whose, and drops unsigned reasoning without a word", () => {
    const google = call('google');
    const kept = keepOwnReasoning(request, google);
    expect(kept.messages[1].parts.map((p) => p.type)).toEqual(['tool-call']);
    expect(kept.messages[3].parts).toEqual([{ type: 'reasoning', text: 'g', signature: 'sigG', signedBy: 'google' }, { type: 'tool-call', id: 't2', name: 'f', input: {} }]);
    expect(google.adjustments.dropped).toEqual(['reasoning signed elsewhere (1)', 'reasoning signed by anthropic (1)']);
    const anthropic = call('anthropic');
    expect(keepOwnReasoning(request, anthropic).messages[3].parts.map((p) => p.type)).toEqual(['redacted-reasoning', 'tool-call']);
    expect(anthropic.adjustments.dropped).toEqual(['reasoning signed elsewhere (1)', 'reasoning signed by google (1)']);
  });

  it('a request without replayed reasoning is returned as it is', () => {
    const plain = { ...request, messages: request.messages.slice(0, 1) };
    expect(keepOwnReasoning(plain, call('openai'))).toBe(plain);
  });
});
