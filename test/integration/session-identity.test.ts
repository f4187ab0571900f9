import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../core/cli/run-cli.ts';
import { GroqEmulator } from '../emulators/groq-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';

const KEYS = { GROQ_API_KEY: 'gsk-test-session-identity' };
const MODEL = 'groq/llama-3.3-70b-versatile';

/** Every usage row names the client's session and agent as the client sent them: ids only, never content. */
describe('session identity on usage rows', () => {
  const groq = new GroqEmulator({ apiKey: KEYS.GROQ_API_KEY });
  let pb: TestPatchbay;

  beforeAll(async () => {
    const url = `${await groq.start()}/openai/v1`;
    pb = await startPatchbay({ config: { providers: { groq: { baseUrl: url } } }, env: KEYS });
  });
  afterAll(async () => {
    await pb.stop();
    await groq.close();
  });

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(`${pb.patchbay.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pb.key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    await response.arrayBuffer();
    return response.status;
  };
  const lastRow = () => usageRows(pb.patchbay).at(-1)!;
  const chat = { model: MODEL, messages: [{ role: 'user', content: 'hello' }] };

  it("records Claude Code's session, agent and parent agent ids from its headers", async () => {
    expect(
      await post('/v1/chat/completions', chat, {
        'X-Claude-Code-Session-Id': '1f0c7e4a-cc-session',
        'X-Claude-Code-Agent-Id': 'agent-sub-1',
        'X-Claude-Code-Parent-Agent-Id': 'agent-main',
      }),
    ).toBe(200);
    expect(lastRow()).toMatchObject({ session_id: '1f0c7e4a-cc-session', session_source: 'claude-code', agent_id: 'agent-sub-1', parent_agent_id: 'agent-main' });
  });

  it("records Codex's session from client_metadata on /v1/responses, over its window id header, and its prompt_cache_key otherwise", async () => {
    const responses = { model: MODEL, input: 'hello', prompt_cache_key: 'codex-thread-7' };
    expect(await post('/v1/responses', { ...responses, client_metadata: { session_id: 'codex-session-7' } }, { 'x-codex-window-id': 'codex-thread-7:0' })).toBe(200);
    expect(lastRow()).toMatchObject({ session_id: 'codex-session-7', session_source: 'codex', agent_id: null });
    expect(await post('/v1/responses', responses, { 'x-codex-window-id': 'codex-thread-7:0' })).toBe(200);
    expect(lastRow()).toMatchObject({ session_id: 'codex-thread-7:0', session_source: 'codex' });
    expect(await post('/v1/responses', responses)).toBe(200);
    expect(lastRow()).toMatchObject({ session_id: 'codex-thread-7', session_source: 'prompt_cache_key' });
  });

  it("records OpenAI's prompt_cache_key, then user; X-Patchbay-Session wins over everything", async () => {
    expect(await post('/v1/chat/completions', { ...chat, prompt_cache_key: 'pck-1', user: 'user-1' })).toBe(200);
    expect(lastRow()).toMatchObject({ session_id: 'pck-1', session_source: 'prompt_cache_key' });
    expect(await post('/v1/chat/completions', { ...chat, user: 'user-1' })).toBe(200);
    expect(lastRow()).toMatchObject({ session_id: 'user-1', session_source: 'user' });
    expect(await post('/v1/chat/completions', { ...chat, prompt_cache_key: 'pck-1' }, { 'X-Patchbay-Session': 'mine', 'X-Claude-Code-Session-Id': 'cc' })).toBe(200);
    expect(lastRow()).toMatchObject({ session_id: 'mine', session_source: 'patchbay' });
    expect(await post('/v1/chat/completions', chat)).toBe(200);
    expect(lastRow()).toMatchObject({ session_id: null, session_source: null, agent_id: null });
  });

  it('caps ids at 128 characters, and keeps the session on a request refused for its body', async () => {
    expect(await post('/v1/chat/completions', chat, { 'X-Patchbay-Session': 's'.repeat(300) })).toBe(200);
    expect(lastRow().session_id).toBe('s'.repeat(128));
    expect(await post('/v1/chat/completions', { model: MODEL, messages: 'not a list' }, { 'X-Claude-Code-Session-Id': 'cc-refused' })).toBe(400);
    expect(lastRow()).toMatchObject({ status: 400, session_id: 'cc-refused' });
  });

  // Issue 34 (7): ids kept the control characters a /v1 client sent, and `patchbay usage --by session`
  // printed them to the user's terminal: a title change, a screen clear, an OSC 52 clipboard write.
  const ESCAPES = '\x1b]0;pwned\x07\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07\u009b31m\u202e';
  const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

  it("escapes control characters in the ids a client sends (user, prompt_cache_key, Codex's client_metadata.session_id)", async () => {
    expect(await post('/v1/chat/completions', { ...chat, user: `u${ESCAPES}` })).toBe(200);
    const user = lastRow().session_id as string;
    expect(user).not.toMatch(CONTROL);
    expect(user).toBe('u\\x1b]0;pwned\\x07\\x1b[2J\\x1b]52;c;cm0gLXJmIH4=\\x07\\x9b31m\\u202e');
    expect(await post('/v1/chat/completions', { ...chat, prompt_cache_key: `p${ESCAPES}` })).toBe(200);
    expect(lastRow().session_id).not.toMatch(CONTROL);
    expect(await post('/v1/responses', { model: MODEL, input: 'hello', client_metadata: { session_id: `c${ESCAPES}` } })).toBe(200);
    expect(lastRow()).toMatchObject({ session_source: 'codex' });
    expect(lastRow().session_id).not.toMatch(CONTROL);
    // Two ids that differ only in a control character stay two sessions.
    expect(await post('/v1/chat/completions', { ...chat, user: 'a\x1bb' })).toBe(200);
    expect(await post('/v1/chat/completions', { ...chat, user: 'a\x07b' })).toBe(200);
    const rows = usageRows(pb.patchbay);
    expect(rows.at(-2)!.session_id).not.toBe(rows.at(-1)!.session_id);
  });

  it('`patchbay usage --by session` prints stored ids with their control characters escaped (rows an older Patchbay stored raw)', async () => {
    const now = Date.now();
    pb.patchbay.usage.record({
      ts: now, requestId: 'req_raw_escapes', keyId: null, endpoint: 'chat', requestedModel: MODEL, provider: 'groq', model: 'llama-3.3-70b-versatile', strategy: 'balanced',
      status: 200, errorType: null, stream: false, promptTokens: 1, completionTokens: 1, totalTokens: 2, inputPrice: 0, outputPrice: 0, costUsd: 0, latencyMs: 1, firstByteMs: 1,
      attempts: [], routeReason: null, errorMessage: null, fallback: false, sessionId: `raw${ESCAPES}`, sessionSource: 'user', agentId: `agent${ESCAPES}`,
    } as Parameters<typeof pb.patchbay.usage.record>[0]);
    pb.patchbay.usage.flush();
    let stdout = '';
    let stderr = '';
    const code = await runCli(['usage', '--by', 'session', '--data-dir', pb.dataDir], { out: (t) => (stdout += t), err: (t) => (stderr += t), env: { PATH: process.env.PATH } });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('raw\\x1b]0;pwned\\x07');
    expect(stdout).toContain('agent\\x1b]0;pwned\\x07');
    expect(stdout).not.toMatch(CONTROL);
  });
});
