import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexBody, codexHeaders, userMessage } from '../helpers/codex-request.ts';
import { call, parseSse } from './emulator-test-helpers.ts';
import { OpenAiEmulator } from './openai-emulator.ts';

const KEY = 'responses-emulator-key';

describe('OpenAI Responses emulator: what Codex CLI sends', () => {
  const emulator = new OpenAiEmulator({ apiKey: KEY });
  let base = '';
  beforeAll(async () => {
    base = await emulator.start();
  });
  afterAll(() => emulator.close());
  const create = (body: Record<string, unknown>, headers: Record<string, string> = { authorization: `Bearer ${KEY}` }) => call(`${base}/v1/responses`, { headers, body });

  it("accepts Codex's request (headers, client_metadata, prompt_cache_key, include, the namespace and web_search tools) and calls a namespaced function with its namespace", async () => {
    const res = await create(codexBody('gpt-4o', [userMessage('Delegate it with spawn_agent')]), codexHeaders(KEY));
    expect(res.status).toBe(200);
    const done = parseSse(res.text).map((e) => e.json as { type: string; item?: Record<string, unknown> }).filter((e) => e.type === 'response.output_item.done');
    expect(done.map((e) => e.item)).toContainEqual(expect.objectContaining({ type: 'function_call', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{"message":"message-value"}' }));
  });

  it('refuses what OpenAI refuses: an unknown parameter, an unknown tool type, a non-function inside a namespace, an unknown include', async () => {
    const base = { model: 'gpt-4o', input: 'hi' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, frobnicate: true }, 'frobnicate'],
      [{ ...base, tools: [{ type: 'teleport' }] }, 'tools[0].type'],
      [{ ...base, tools: [{ type: 'namespace', name: 'ns', description: 'd', tools: [{ type: 'web_search' }] }] }, 'tools[0].tools[0].type'],
      [{ ...base, include: ['everything'] }, 'include[0]'],
      [{ ...base, client_metadata: { turn: 1 } }, 'client_metadata.turn'],
    ];
    for (const [body, param] of cases) {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ type: 'invalid_request_error', param });
    }
  });
});
