import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

/**
 * Thinking on Gemini over /v1/messages, through the Gemini adapter's own neutral mapping: a
 * thinking budget asks Gemini for its thought summaries, which arrive as a thinking block; Gemini's
 * thought signature arrives as that block's signature, sealed with the provider's name
 * (`patchbay:google:<signature>`, so that it never reaches Anthropic), and when Claude Code sends
 * the turn back, the signature reaches Gemini again on the part it signed (the function call or the answer).
 */

let gemini: GeminiEmulator;
let pb: TestPatchbay;
let anthropic: Anthropic;

beforeAll(async () => {
  gemini = new GeminiEmulator({ apiKey: 'gm-think' });
  const url = await gemini.start();
  pb = await startPatchbay({ config: { providers: { google: { baseUrl: `${url}/v1beta` } } }, env: { GEMINI_API_KEY: 'gm-think' } });
  anthropic = new Anthropic({ baseURL: pb.patchbay.url, apiKey: pb.key, maxRetries: 0 });
});
afterAll(async () => {
  await pb?.stop();
  await gemini?.close();
});

const weather: Anthropic.Tool = { name: 'get_weather', description: 'Weather in a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const ask = { model: 'gemini-2.5-flash', max_tokens: 2048, thinking: { type: 'enabled' as const, budget_tokens: 1024 } };

function lastGeminiBody(): { contents: { role: string; parts: Record<string, unknown>[] }[]; generationConfig?: Record<string, unknown> } {
  return gemini.requests.filter((r) => r.path.includes('generateContent') || r.path.includes('streamGenerateContent')).at(-1)!.body as never;
}

describe('Gemini thinking over /v1/messages', () => {
  it('streams the thought summary as a signed thinking block, and replays the signature on the function call', async () => {
    const first = await anthropic.messages.stream({ ...ask, tools: [weather], messages: [{ role: 'user', content: 'Weather in Paris?' }] }).finalMessage();
    expect(lastGeminiBody().generationConfig).toMatchObject({ thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } });
    expect(first.content.map((b) => b.type)).toEqual(['thinking', 'tool_use']);
    const thinking = first.content[0] as Anthropic.ThinkingBlock;
    expect(thinking.thinking).toBe('Thinking it over before answering.');
    expect(thinking.signature).toMatch(/^patchbay:google:EMU-SIG-/);
    const call = first.content[1] as Anthropic.ToolUseBlock;

    await anthropic.messages.create({
      ...ask,
      tools: [weather],
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'Sunny, 21°C' }] },
      ],
    });
    const model = lastGeminiBody().contents[1];
    expect(model).toEqual({ role: 'model', parts: [{ functionCall: { name: 'get_weather', args: call.input }, thoughtSignature: thinking.signature.replace('patchbay:google:', '') }] });
  });

  it('a text answer: thinking then text, and the signature goes back on the text', async () => {
    const first = await anthropic.messages.create({ ...ask, messages: [{ role: 'user', content: 'Say hello.' }] });
    expect(first.content.map((b) => b.type)).toEqual(['thinking', 'text']);
    const signature = (first.content[0] as Anthropic.ThinkingBlock).signature;
    expect(signature).toMatch(/^patchbay:google:EMU-SIG-/);
    await anthropic.messages.create({ ...ask, messages: [{ role: 'user', content: 'Say hello.' }, { role: 'assistant', content: first.content }, { role: 'user', content: 'Again.' }] });
    const model = lastGeminiBody().contents[1];
    expect(model.parts).toEqual([{ text: (first.content[1] as Anthropic.TextBlock).text, thoughtSignature: signature.replace('patchbay:google:', '') }]);
  });
});
