import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS, startRig, type Rig } from '../helpers/conformance-matrix.ts';

/**
 * Reasoning over /v1/responses as Codex uses it (store: false, include
 * reasoning.encrypted_content, the previous output replayed every turn): OpenAI's encrypted
 * reasoning round-trips unchanged; reasoning another upstream cannot read is left out for it.
 */

let rig: Rig;
let client: OpenAI;

beforeAll(async () => {
  rig = await startRig();
  client = rig.client;
});
afterAll(() => rig.stop());

const GPT = 'openai/gpt-4o';
const codexTurn = { store: false, reasoning: { effort: 'low' as const, summary: 'auto' as const }, include: ['reasoning.encrypted_content' as const] };

describe('OpenAI (pass-through)', () => {
  it('create: a reasoning item with encrypted_content and summary, reasoning tokens counted; replaying it next turn is accepted', async () => {
    const first = await client.responses.create({ model: GPT, input: 'Think first', ...codexTurn });
    const reasoning = first.output.find((item) => item.type === 'reasoning');
    expect(reasoning).toMatchObject({ type: 'reasoning', encrypted_content: expect.stringMatching(/^gAAAA/), summary: [{ type: 'summary_text', text: expect.stringMatching(/./) }] });
    expect(first.usage!.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    const next = await client.responses.create({ model: GPT, input: [{ role: 'user', content: 'Think first' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'And now?' }], ...codexTurn });
    expect(next.output_text).toBe('You said: And now?');
  });

  it('stream: reasoning summary deltas, then the reasoning item (with encrypted_content) in the final response', async () => {
    const stream = client.responses.stream({ model: GPT, input: 'Think first', ...codexTurn });
    const summary: string[] = [];
    stream.on('response.reasoning_summary_text.delta', (event) => summary.push(event.delta));
    const response = await stream.finalResponse();
    expect(summary.join('')).toMatch(/Thinking/);
    expect(response.output[0]).toMatchObject({ type: 'reasoning', encrypted_content: expect.stringMatching(/^gAAAA/) });
    expect(response.usage!.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });

  it('a reasoning item Patchbay wrote for another upstream is not sent to OpenAI, which would refuse the whole request', async () => {
    const before = rig.emulators.openai.requests.length;
    const foreign = { type: 'reasoning' as const, id: 'rs_other', summary: [], encrypted_content: 'patchbay:anthropic:c2lnbmF0dXJl' };
    const response = await client.responses.create({ model: GPT, input: [{ role: 'user', content: 'Hi' }, foreign, { role: 'assistant', content: 'Hello' }, { role: 'user', content: 'Again' }], ...codexTurn });
    expect(response.output_text).toBe('You said: Again');
    const sent = rig.emulators.openai.requests.slice(before).find((r) => r.path.endsWith('/responses'))!.body as { input: { type?: string }[]; model: string };
    expect(sent.input.map((item) => item.type ?? 'message')).toEqual(['message', 'message', 'message']);
    expect(sent.model).toBe('gpt-4o');
  });
});

describe.each(PROVIDERS.filter((p) => p.name !== 'openai').map((p) => [p.name, p.chat] as const))('%s (translated)', (_name, model) => {
  it("OpenAI's encrypted reasoning replayed to it (a session moved off OpenAI) is left out and the turn is answered", async () => {
    const first = await client.responses.create({ model: GPT, input: 'Think first', ...codexTurn });
    const next = await client.responses.create({ model, input: [{ role: 'user', content: 'Think first' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'And now?' }], ...codexTurn });
    expect(next.status).toBe('completed');
    expect(next.output_text).toBe('You said: And now?');
    expect(next.usage!.output_tokens_details.reasoning_tokens).toBeTypeOf('number');
  });
});

describe.each([
  ['anthropic', 'anthropic/claude-haiku-4-5-20251001'],
  ['google', 'google/gemini-2.5-flash'],
] as const)('%s thinks when asked through reasoning.effort', (_name, model) => {
  it('answers with a reasoning item carrying the reasoning text, and the item replayed next turn goes back to the same upstream', async () => {
    const first = await client.responses.create({ model, input: 'Think first', ...codexTurn });
    const reasoning = first.output.find((item) => item.type === 'reasoning') as { content?: { text: string }[]; encrypted_content?: string } | undefined;
    expect(reasoning?.content?.[0]?.text).toMatch(/./);
    expect(first.output_text).toMatch(/./);
    const next = await client.responses.create({ model, input: [{ role: 'user', content: 'Think first' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'And now?' }], ...codexTurn });
    expect(next.status).toBe('completed');
  });

  it('the item replayed without its content, as Codex replays reasoning, still goes back with the text its signature covers', async () => {
    const first = await client.responses.create({ model, input: 'Think first', ...codexTurn });
    const reasoning = first.output.find((item) => item.type === 'reasoning') as { content?: { text: string }[] } | undefined;
    const shown = reasoning!.content![0].text;
    const replayed = (first.output as (OpenAI.Responses.ResponseInputItem & { content?: unknown })[]).map((item) => (item.type === 'reasoning' ? { ...item, content: undefined } : item));
    const at = rig.emulators[_name].requests.length;
    const next = await client.responses.create({ model, input: [{ role: 'user', content: 'Think first' }, ...replayed, { role: 'user', content: 'And now?' }], ...codexTurn });
    expect(next.status).toBe('completed');
    // Anthropic checks the thinking text against its signature; Gemini takes back only the signature.
    if (_name === 'anthropic') expect(JSON.stringify(rig.emulators[_name].requests.slice(at).map((r) => r.body))).toContain(JSON.stringify(shown).slice(1, -1));
  });

  it("'minimal' effort asks for no thinking", async () => {
    const response = await client.responses.create({ model, input: 'Think first', store: false, reasoning: { effort: 'minimal' } });
    expect(response.output.some((item) => item.type === 'reasoning')).toBe(false);
  });
});
