import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainChatRequest, PLAIN_CHAT_FIELDS } from '../../core/protocols/openai/plain-chat-request.ts';
import { chatRequestSchema } from '../../core/protocols/openai/request-schemas.ts';

// The hand check that lets the common chat body skip zod on the hot path. It may say "not sure"
// (false) for a valid body, never "plain" for a body zod would refuse or change.

const number = fc.oneof(fc.integer({ min: -5, max: 100 }), fc.double({ min: -5, max: 5, noNaN: true }), fc.constant(2 ** 53 + 2), fc.constant(-0));
const anyValue = fc.oneof(number, fc.string({ maxLength: 5 }), fc.boolean(), fc.constant(null), fc.constant([]), fc.constant({}), fc.array(fc.string({ maxLength: 3 }), { maxLength: 6 }));
const role = fc.oneof({ arbitrary: fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool'), weight: 8 }, { arbitrary: fc.string({ maxLength: 4 }), weight: 1 });
// Mostly what the schema accepts, sometimes not: each generator is weighted towards the valid.
const mostly = <T,>(valid: fc.Arbitrary<T>, weight = 6) => fc.oneof({ arbitrary: valid as fc.Arbitrary<unknown>, weight }, { arbitrary: anyValue, weight: 1 });
const message = fc.record(
  {
    role,
    content: fc.oneof({ arbitrary: fc.string({ maxLength: 8 }), weight: 8 }, fc.constant(null), fc.constant([{ type: 'text', text: 'x' }]), number),
    name: mostly(fc.string({ maxLength: 4 })),
    tool_call_id: mostly(fc.constantFrom('call_1', ''), 8),
    tool_calls: fc.constant([{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }]),
    extra: anyValue,
  },
  { requiredKeys: ['role', 'content'] },
);
const tool = fc.record(
  {
    type: mostly(fc.constant('function'), 10),
    function: fc.record(
      {
        name: mostly(fc.constantFrom('get_weather', 'run-bash', '', 'x'.repeat(65), 'a b'), 10),
        description: mostly(fc.string({ maxLength: 4 })),
        parameters: mostly(fc.constant({ type: 'object', properties: { a: { type: 'string' } } })),
        strict: mostly(fc.oneof(fc.boolean(), fc.constant(null))),
      },
      { requiredKeys: ['name'] },
    ),
  },
  { requiredKeys: ['type', 'function'] },
);
/** In range mostly, sometimes just past its edges. */
const edge = (inRange: fc.Arbitrary<number>, outside: number[]) => fc.oneof({ arbitrary: inRange, weight: 12 }, { arbitrary: fc.constantFrom(...outside), weight: 1 });
const VALID: Record<string, fc.Arbitrary<unknown>> = {
  temperature: edge(fc.double({ min: 0, max: 2, noNaN: true }), [-0.01, 2.01]),
  top_p: edge(fc.double({ min: 0, max: 1, noNaN: true }), [-0.01, 1.01]),
  n: edge(fc.integer({ min: 1, max: 64 }), [0, 65, 1.5]),
  stop: fc.oneof(fc.string({ maxLength: 3 }), fc.array(fc.oneof({ arbitrary: fc.string({ maxLength: 3 }), weight: 9 }, { arbitrary: number, weight: 1 }), { maxLength: 5 })),
  stream: fc.boolean(),
  stream_options: fc.record({ include_usage: mostly(fc.boolean()) }, { requiredKeys: [] }),
  presence_penalty: edge(fc.double({ min: -2, max: 2, noNaN: true }), [-2.01, 2.01]),
  frequency_penalty: edge(fc.double({ min: -2, max: 2, noNaN: true }), [-2.01, 2.01]),
  seed: edge(fc.integer(), [2 ** 53 + 2, 0.5, -(2 ** 60)]),
  user: fc.string({ maxLength: 4 }),
  max_tokens: edge(fc.integer({ min: 1, max: 100_000 }), [0, -1, 1.5, 2 ** 53 + 2]),
  max_completion_tokens: edge(fc.integer({ min: 1, max: 100_000 }), [0, -1, 1.5]),
  tools: fc.array(tool, { maxLength: 3 }),
  tool_choice: fc.oneof(fc.constantFrom('none', 'auto', 'required', 'any'), fc.constant({ type: 'function', function: { name: 'f' } })),
  parallel_tool_calls: fc.boolean(),
  logprobs: fc.boolean(),
  top_logprobs: edge(fc.integer({ min: 0, max: 20 }), [-1, 21, 0.5]),
};
const body = fc.record(
  {
    model: mostly(fc.constantFrom('gpt-4o', 'llama-3.3-70b', '', 'a\nb', 'x'.repeat(257), 'x'.repeat(256)), 10),
    messages: mostly(fc.array(message, { minLength: 1, maxLength: 4 }), 10),
    ...Object.fromEntries(Object.keys(PLAIN_CHAT_FIELDS).map((name) => [name, fc.oneof({ arbitrary: VALID[name], weight: 40 }, { arbitrary: fc.constant(null), weight: 2 }, { arbitrary: anyValue, weight: 1 })])),
    unknown_extra: anyValue,
  },
  { requiredKeys: ['model', 'messages'] },
);

describe('isPlainChatRequest (the hot path skipping zod)', () => {
  it('says "plain" only for bodies zod accepts unchanged', () => {
    let plain = 0;
    fc.assert(
      fc.property(body, (candidate) => {
        // As the server sees it: parsed from JSON text.
        const parsed = JSON.parse(JSON.stringify(candidate));
        if (!isPlainChatRequest(parsed)) return;
        plain++;
        const result = chatRequestSchema.safeParse(parsed);
        expect(result.success).toBe(true);
        expect(result.data).toEqual(parsed);
      }),
      { numRuns: 20_000 },
    );
    // The property said something: a share of the generated bodies were plain.
    expect(plain).toBeGreaterThan(50);
  });

  it('checks every field of the chat schema (a new field must be added to the hand check)', () => {
    expect(new Set([...Object.keys(PLAIN_CHAT_FIELDS), 'model', 'messages'])).toEqual(new Set(Object.keys(chatRequestSchema.shape)));
  });

  it('takes the common bodies: text turns, sampling fields, a stream with usage, function tools', () => {
    const common = [
      { model: 'llama-3.3-70b', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], max_tokens: 64, temperature: 0 },
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true }, user: 'u1', seed: 7, top_p: 1, n: 1, stop: ['\n'] },
      {
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'Weather?' }, { role: 'tool', content: '{"t":20}', tool_call_id: 'call_1' }],
        tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: true } }],
        tool_choice: 'auto',
        parallel_tool_calls: true,
        prompt_cache_key: 'abc',
      },
    ];
    for (const candidate of common) expect(isPlainChatRequest(candidate), JSON.stringify(candidate)).toBe(true);
  });

  it('leaves to zod what it is not sure of: content parts, tool calls, an own __proto__, a nullable user', () => {
    const unsure = [
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] },
      { model: 'm', messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }] }] },
      JSON.parse('{"model":"m","messages":[{"role":"user","content":"x"}],"__proto__":{"x":1}}'),
      { model: 'm', messages: [{ role: 'user', content: 'x' }], user: null },
      { model: 'm', messages: [] },
      { model: 'm', messages: [{ role: 'user', content: 'x' }], max_tokens: 0 },
    ];
    for (const candidate of unsure) expect(isPlainChatRequest(candidate), JSON.stringify(candidate)).toBe(false);
  });
});
