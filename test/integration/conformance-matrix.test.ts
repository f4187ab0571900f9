import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatPromptTokens, countTokens, replyText } from '../emulators/openai-emulator.ts';
import {
  MODES,
  PROVIDERS,
  expectBadRequest,
  newUsageRows,
  runChat,
  startRig,
  usageRowCount,
  type ChatResult,
  type Mode,
  type ProviderCase,
  type Rig,
} from '../helpers/conformance-matrix.ts';

/**
 * The chat conformance matrix: each provider x (JSON, stream, stream with include_usage) x each
 * request shape, driven through the official openai client. The emulators give every provider the
 * same deterministic answer and token counts (test/emulators/openai-emulator.ts: replyText,
 * chatPromptTokens, countTokens), so one expectation per case fits all five; the translation must
 * preserve text, tool calls, finish reasons and token counts exactly.
 * Completions and embeddings: conformance-matrix-completions.test.ts, conformance-matrix-embeddings.test.ts.
 */

type Message = OpenAI.Chat.ChatCompletionMessageParam;
type Params = Omit<OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, 'model' | 'stream' | 'stream_options'>;

/** A 1x1 PNG. */
const IMAGE = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

interface ChatCase {
  name: string;
  params: Params;
  /** The parameter Patchbay must refuse with a 400 on this provider's endpoint (catalog capability missing), if any. */
  refusedBy?: (p: ProviderCase) => string | undefined;
  /** The emulated model's answer, when it differs from replyText(messages) ending naturally. */
  text?: string;
  finish?: 'stop' | 'length';
}

const user = (content: string): Message => ({ role: 'user', content });

const CASES: ChatCase[] = [
  { name: 'plain', params: { messages: [user('one two three four')] } },
  { name: 'system prompt', params: { messages: [{ role: 'system', content: 'Answer in one short line.' }, user('hello there')] } },
  // The reply is "You said: alpha beta gamma": cut before the stop sequence, which is not part of the output.
  { name: 'stop', params: { messages: [user('alpha beta gamma')], stop: [' beta', 'never-matches'] }, text: 'You said: alpha' },
  { name: 'max_tokens reached', params: { messages: [user('one two three four five')], max_tokens: 3 }, text: 'You said: one', finish: 'length' },
  { name: 'n=2', params: { messages: [user('pick a colour')], n: 2 }, refusedBy: (p) => (p.n ? undefined : 'n') },
  {
    name: 'image input',
    params: { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: IMAGE } }, { type: 'text', text: 'What is in this picture?' }] }] },
    refusedBy: (p) => (p.images ? undefined : 'messages'),
  },
];

const WEATHER_TOOL: OpenAI.Chat.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city'] },
  },
};
/** The emulators' tool arguments: each required property set to "<name>-value"; tokens = words of the JSON + 5. */
const WEATHER_ARGS = { city: 'city-value' };
const TOOL_CALL_TOKENS = countTokens(JSON.stringify(WEATHER_ARGS)) + 5;

const usageOf = (prompt: number, completion: number) => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });

/** The answer's usage: in the body or the last chunk, none at all on a stream without include_usage. */
function expectUsage(result: ChatResult, mode: Mode, usage: ReturnType<typeof usageOf>): void {
  if (mode === 'stream') expect(result.usage).toBeUndefined();
  else expect(result.usage).toMatchObject(usage);
}

async function expectOneRow(rig: Rig, before: number, row: Record<string, unknown>): Promise<void> {
  const rows = await newUsageRows(rig.pb, before);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject(row);
}

describe('conformance matrix: /v1/chat/completions', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig?.stop();
  });

  describe.each(PROVIDERS)('$name', (p) => {
    describe.each(CASES)('$name', (c) => {
      it.each(MODES)('%s', async (mode) => {
        const before = usageRowCount(rig.pb);
        const params = { model: p.chat, ...c.params };
        const refused = c.refusedBy?.(p);
        if (refused) {
          const sent = rig.emulators[p.name].requests.length;
          await expectBadRequest(runChat(rig.client, params, mode), refused);
          expect(rig.emulators[p.name].requests.length, 'refused before reaching the upstream').toBe(sent);
          await expectOneRow(rig, before, { endpoint: 'chat', status: 400, stream: mode === 'json' ? 0 : 1 });
          return;
        }
        const n = c.params.n ?? 1;
        const messages = c.params.messages as Parameters<typeof chatPromptTokens>[0];
        const text = c.text ?? replyText(messages);
        const result = await runChat(rig.client, params, mode);
        expect(result.choices).toEqual(
          Array.from({ length: n }, (_, index) => ({ index, role: 'assistant', content: text, tool_calls: undefined, finish_reason: c.finish ?? 'stop' })),
        );
        const usage = usageOf(chatPromptTokens(messages) * (p.promptBilledPerChoice ? n : 1), countTokens(text) * n);
        expectUsage(result, mode, usage);
        await expectOneRow(rig, before, { endpoint: 'chat', status: 200, requested_model: p.chat, provider: p.name, model: p.servedChat, stream: mode === 'json' ? 0 : 1, ...usage });
      });
    });

    it.each(MODES)('tools round trip: %s', async (mode) => {
      const before = usageRowCount(rig.pb);
      const ask: Message[] = [user('What is the weather in Paris?')];
      const first = await runChat(rig.client, { model: p.chat, messages: ask, tools: [WEATHER_TOOL] }, mode);
      expect(first.choices).toEqual([
        { index: 0, role: 'assistant', content: null, tool_calls: [{ id: expect.stringMatching(/./), type: 'function', name: 'get_weather', arguments: expect.any(String) }], finish_reason: 'tool_calls' },
      ]);
      const call = first.choices[0].tool_calls![0];
      expect(JSON.parse(call.arguments)).toEqual(WEATHER_ARGS);
      const firstUsage = usageOf(chatPromptTokens(ask as Parameters<typeof chatPromptTokens>[0]), TOOL_CALL_TOKENS);
      expectUsage(first, mode, firstUsage);

      const conversation: Message[] = [
        ...ask,
        { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }] },
        { role: 'tool', tool_call_id: call.id, content: 'sunny and 21 degrees' },
      ];
      const second = await runChat(rig.client, { model: p.chat, messages: conversation, tools: [WEATHER_TOOL] }, mode);
      const text = 'The tool returned sunny and 21 degrees';
      expect(second.choices).toEqual([{ index: 0, role: 'assistant', content: text, tool_calls: undefined, finish_reason: 'stop' }]);
      const secondUsage = usageOf(chatPromptTokens(conversation as Parameters<typeof chatPromptTokens>[0]), countTokens(text));
      expectUsage(second, mode, secondUsage);

      const rows = await newUsageRows(rig.pb, before, 2);
      expect(rows).toHaveLength(2);
      const stream = mode === 'json' ? 0 : 1;
      expect(rows[0]).toMatchObject({ endpoint: 'chat', status: 200, requested_model: p.chat, provider: p.name, model: p.servedChat, stream, ...firstUsage });
      expect(rows[1]).toMatchObject({ endpoint: 'chat', status: 200, requested_model: p.chat, provider: p.name, model: p.servedChat, stream, ...secondUsage });
    });
  });
});
