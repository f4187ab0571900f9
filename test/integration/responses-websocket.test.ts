import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexBody, codexTurn, userMessage } from '../helpers/codex-request.ts';
import { CodexWebSocket } from '../helpers/codex-websocket.ts';
import { newUsageRows, PROVIDERS, startRig, usageRowCount, type Rig } from '../helpers/conformance-matrix.ts';
import { startPatchbay } from '../helpers/start-patchbay.ts';

/**
 * GET /v1/responses with Upgrade: websocket, as Codex speaks it with `supports_websockets`
 * (openai/codex responses_websocket.rs, observed with Codex 0.169 and 0.171): a warm-up frame that
 * generates nothing, then response.create frames that carry only the new items after
 * previous_response_id, on one connection; answered with the events of a streamed POST, under the
 * same key, limits, routing and usage rows. The real Codex: test/agents/codex-websocket.test.ts.
 */

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(() => rig.stop());

const INSTRUCTIONS = { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are Codex, a coding agent.' }] };
/** Codex's body without tools: the emulated models answer in text (with tools offered they call the first one). */
const body = (model: string, input: unknown[]) => codexBody(model, input, { tools: [] });
const texts = (response: Record<string, any> | null) => (response?.output ?? []).flatMap((item: Record<string, any>) => (item.content ?? []).map((c: { text?: string }) => c.text)).join('');
const posts = (name: keyof Rig['emulators']) => rig.emulators[name].requests.filter((r) => r.method === 'POST').length;

describe.each(PROVIDERS.map((p) => [p.name, p] as const))('a Codex session over the Responses WebSocket via %s', (name, provider) => {
  it('warm-up generates nothing; each turn sends only its new items; the upstream gets the whole history; a usage row per turn', async () => {
    const ws = await CodexWebSocket.open(rig.pb.patchbay.url, rig.pb.key);
    try {
      const before = usageRowCount(rig.pb);
      const calls = posts(name);
      const warm = await ws.turn({ ...body(provider.chat, [INSTRUCTIONS]), generate: false });
      expect(warm.completed).toMatchObject({ status: 'completed', output: [] });
      expect(warm.events.map((e) => e.type)).toEqual(['response.created', 'response.completed']);
      expect(posts(name)).toBe(calls);

      const one = await ws.turn({ ...body(provider.chat, [userMessage('first turn')]), previous_response_id: warm.completed!.id });
      expect(one.error).toBeNull();
      expect(texts(one.completed)).toContain('first turn');
      const two = await ws.turn({ ...body(provider.chat, [userMessage('second turn')]), previous_response_id: one.completed!.id });
      expect(texts(two.completed)).toContain('second turn');
      // The second frame held one message; the provider got the instructions, both turns and the first answer.
      expect(two.sentBytes).toBeLessThan(JSON.stringify(body(provider.chat, [INSTRUCTIONS, userMessage('first turn'), ...one.completed!.output, userMessage('second turn')])).length);
      const upstream = JSON.stringify(rig.emulators[name].requests.at(-1)!.body);
      for (const text of ['You are Codex, a coding agent.', 'first turn', texts(one.completed), 'second turn']) expect(upstream).toContain(text);
      expect(posts(name)).toBe(calls + 2);

      const rows = await newUsageRows(rig.pb, before, 2);
      expect(rows).toHaveLength(2);
      for (const row of rows) expect(row).toMatchObject({ endpoint: 'responses', provider: name, model: provider.servedChat, status: 200, session_source: 'codex' });
      expect(Number(rows[1].prompt_tokens)).toBeGreaterThan(Number(rows[0].prompt_tokens));
    } finally {
      await ws.close();
    }
  });
});

describe('the Responses WebSocket', () => {
  const model = PROVIDERS[1].chat;

  it('answers a turn with the events a streamed POST sends', async () => {
    const request = body(model, [INSTRUCTIONS, userMessage('same answer')]);
    const sse = await codexTurn(rig.pb.patchbay.url, rig.pb.key, request);
    const ws = await CodexWebSocket.open(rig.pb.patchbay.url, rig.pb.key);
    const turn = await ws.turn(request);
    expect(texts(turn.completed)).toContain('same answer');
    await ws.close();
    expect(turn.events.map((e) => e.type)).toEqual(sse.types);
    expect(texts(turn.completed)).toBe(texts(sse.completed));
  });

  it('continues only the connection\'s last response: another id is previous_response_not_found (Codex then sends everything)', async () => {
    const ws = await CodexWebSocket.open(rig.pb.patchbay.url, rig.pb.key);
    try {
      const unknown = await ws.turn({ ...body(model, [userMessage('hi')]), previous_response_id: 'resp_elsewhere' });
      expect(unknown.error).toMatchObject({ type: 'error', status: 400, error: { code: 'previous_response_not_found', param: 'previous_response_id' } });
      const whole = await ws.turn(body(model, [INSTRUCTIONS, userMessage('whole history')]));
      expect(texts(whole.completed)).toContain('whole history');
      const wrongType = await new Promise<Record<string, any>>((resolve) => {
        ws.socket.once('message', (data) => resolve(JSON.parse(String(data))));
        ws.socket.send(JSON.stringify({ type: 'session.update' }));
      });
      expect(wrongType).toMatchObject({ type: 'error', status: 400, error: { param: 'type' } });
    } finally {
      await ws.close();
    }
  });

  it('asks for the Patchbay key at the upgrade, and again at every turn (a key revoked meanwhile stops the next one)', async () => {
    await expect(CodexWebSocket.open(rig.pb.patchbay.url, null)).rejects.toMatchObject({ status: 401 });
    await expect(CodexWebSocket.open(rig.pb.patchbay.url, 'pb-wrong')).rejects.toMatchObject({ status: 401 });
    const created = rig.pb.patchbay.keys.create({ name: 'ws-revoked' });
    const ws = await CodexWebSocket.open(rig.pb.patchbay.url, created.secret);
    try {
      expect((await ws.turn(body(model, [userMessage('before')]))).error).toBeNull();
      rig.pb.patchbay.keys.revoke(created.record.id);
      const after = await ws.turn(body(model, [userMessage('after')]));
      expect(after.error).toMatchObject({ status: 401, error: { message: expect.stringContaining('revoked') } });
    } finally {
      await ws.close();
    }
  });

  it("applies the key's limits per turn, as a 429 frame with its retry-after", async () => {
    const limited = rig.pb.patchbay.keys.create({ name: 'ws-rpm', rpmLimit: 1 });
    const ws = await CodexWebSocket.open(rig.pb.patchbay.url, limited.secret);
    try {
      expect((await ws.turn(body(model, [userMessage('one')]))).error).toBeNull();
      const second = await ws.turn(body(model, [userMessage('two')]));
      expect(second.error).toMatchObject({ type: 'error', status: 429, headers: { 'retry-after': expect.stringMatching(/^\d+$/) } });
    } finally {
      await ws.close();
    }
  });

  it('keeps a session on one provider of an alias, as sticky routing does over SSE', async () => {
    const before = usageRowCount(rig.pb);
    const ws = await CodexWebSocket.open(rig.pb.patchbay.url, rig.pb.key, { 'x-codex-window-id': 'sticky-session:0' });
    try {
      let previous: string | null = null;
      for (const word of ['one', 'two', 'three']) {
        const turn = await ws.turn({ ...body('llama-3.3-70b', [userMessage(word)]), ...(previous ? { previous_response_id: previous } : {}) });
        expect(turn.error).toBeNull();
        previous = turn.completed!.id;
      }
    } finally {
      await ws.close();
    }
    const rows = await newUsageRows(rig.pb, before, 3);
    expect(new Set(rows.map((r) => r.provider)).size).toBe(1);
    expect(rows.map((r) => r.session_id)).toEqual(Array(3).fill(rows[0].session_id));
  });

  it('does not keep Patchbay from stopping: an open connection is closed with 1001 (going away)', async () => {
    const pb = await startPatchbay({ shutdownGraceMs: 5_000 });
    const ws = await CodexWebSocket.open(pb.patchbay.url, pb.key);
    const closed = new Promise<number>((resolve) => ws.socket.once('close', (code) => resolve(code)));
    const started = Date.now();
    await pb.stop();
    expect(await closed).toBe(1001);
    expect(Date.now() - started).toBeLessThan(4_000);
  });
});
