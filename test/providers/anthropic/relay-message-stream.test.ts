import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRelayState, relayMessageText, type RelayState } from '../../../core/providers/anthropic/relay-message-stream.ts';

const event = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
const START = event('message_start', { type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 12, output_tokens: 1 } } });
const PING = event('ping', { type: 'ping' });
const BLOCK = event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
const DELTA = (text: string) => event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
const OVERLOADED = event('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
const STOP = [event('content_block_stop', { type: 'content_block_stop', index: 0 }), event('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } }), event('message_stop', { type: 'message_stop' })].join('');

/** Feeds the text cut at the given positions; what the client got, and the error, as the relay would give them. */
function relay(text: string, cuts: number[]): { sent: string; error: unknown; state: RelayState } {
  let state = createRelayState();
  let sent = '';
  const at = [0, ...[...new Set(cuts)].filter((c) => c > 0 && c < text.length).sort((a, b) => a - b), text.length];
  for (let i = 0; i + 1 < at.length; i++) {
    const step = relayMessageText(text.slice(at[i], at[i + 1]), state);
    state = step.state;
    sent += step.send;
    if (step.error) return { sent, error: step.error, state };
    if (state.forward.stopped) break;
  }
  return { sent, error: null, state };
}

describe('relayMessageText: the client gets the same, however the upstream bytes were cut', () => {
  it('a whole answer passes byte for byte, its usage read', () => {
    const text = START + PING + BLOCK + DELTA('Hello') + STOP;
    const whole = relay(text, []);
    expect(whole).toMatchObject({ sent: text, error: null });
    expect(whole.state.forward.usage).toMatchObject({ input_tokens: 12, output_tokens: 5 });
  });

  it('an error after the first content block: the events before it are sent, then the upstream error (any cut)', () => {
    const text = START + BLOCK + DELTA('one') + DELTA(' two') + OVERLOADED;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: text.length - 1 }), { maxLength: 8 }), (cuts) => {
        const out = relay(text, cuts);
        expect(out.sent).toBe(START + BLOCK + DELTA('one') + DELTA(' two'));
        expect(out.error).toEqual({ type: 'overloaded_error', message: 'Overloaded' });
      }),
      { numRuns: 300 },
    );
  });

  it('an error before any content: nothing is sent (another endpoint may still answer), any cut', () => {
    const text = START + PING + OVERLOADED;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: text.length - 1 }), { maxLength: 8 }), (cuts) => {
        expect(relay(text, cuts)).toMatchObject({ sent: '', error: { type: 'overloaded_error' } });
      }),
      { numRuns: 200 },
    );
  });

  it('what comes before the first content block is held and sent with it', () => {
    const first = relayMessageText(START + PING, createRelayState());
    expect(first.send).toBe('');
    const second = relayMessageText(BLOCK, first.state);
    expect(second.send).toBe(START + PING + BLOCK);
  });
});
