import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ModelScript } from '../emulators/emulator-common.ts';
import type { Rig } from '../helpers/conformance-matrix.ts';
import { AnthropicEmulator } from '../emulators/anthropic-emulator.ts';
import { GeminiEmulator } from '../emulators/gemini-emulator.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, usageRows } from '../helpers/start-patchbay.ts';
import { CLAUDE_BIN, CLAUDE_QUIET_ENV, agentsInstalled, baseEnv, createWorkspace, jsonLines, run, type Workspace } from './run-agent.ts';

/**
 * The real Claude Code with thinking on, in a two-step Bash loop that moves between providers
 * turn by turn: Anthropic answers the first step (signed thinking, then a tool call), answers the
 * second with a 529 so the configured fallback serves it (OpenAI, or Gemini 3), and the third
 * comes back to Anthropic, whose emulator checks its signatures and, with thinking enabled, that the
 * turn a tool result answers begins with its own thinking (issue 36 item 3).
 */

const MAIN = 'anthropic/claude-haiku-4-5-20251001';

const KEYS = { anthropic: 'sk-ant-agent-reasoning', openai: 'sk-agent-reasoning', google: 'AIza-agent-reasoning' };

/**
 * Two shell commands, one after the other, then the answer. Anthropic's model, once it has asked
 * for the first, makes its provider answer the next request with a 529 (overloaded), so the
 * fallback serves the second step.
 */
const script: ModelScript = (view) => {
  const ask = view.messages.map((m) => m.role).lastIndexOf('user');
  const done = view.messages.slice(ask + 1).filter((m) => m.role === 'tool').length;
  const commands = /Run `([^`]+)` and then `([^`]+)`/.exec(view.lastUserText);
  if (!commands || !view.tools.includes('Bash')) return { text: 'OK' };
  if (done === 0) rig.emulators.anthropic.inject({ path: '/v1/messages', status: 529 });
  if (done < 2) return { tool: 'Bash', input: { command: commands[done + 1], description: `Step ${done + 1}` } };
  return { text: 'Both ran.' };
};

let rig: Rig;
let workspace: Workspace;
beforeAll(async () => {
  const emulators = { anthropic: new AnthropicEmulator({ apiKey: KEYS.anthropic }), openai: new OpenAiEmulator({ apiKey: KEYS.openai }), google: new GeminiEmulator({ apiKey: KEYS.google }) };
  const [a, o, g] = await Promise.all([emulators.anthropic.start(), emulators.openai.start(), emulators.google.start()]);
  const gemini3 = { id: 'gemini-3-pro-preview', contextWindow: 1048576, maxOutput: 65536, capabilities: ['chat', 'tools', 'images', 'streaming', 'reasoning'] };
  const pb = await startPatchbay({
    config: { providers: { anthropic: { baseUrl: `${a}/v1` }, openai: { baseUrl: `${o}/v1` }, google: { baseUrl: `${g}/v1beta`, models: [gemini3] } } },
    env: { ANTHROPIC_API_KEY: KEYS.anthropic, OPENAI_API_KEY: KEYS.openai, GEMINI_API_KEY: KEYS.google },
  });
  rig = { pb, client: pb.client, emulators: emulators as unknown as Rig['emulators'], stop: async () => { await pb.stop(); await Promise.all(Object.values(emulators).map((e) => e.close())); } };
  for (const emulator of Object.values(emulators)) emulator.script = script;
  workspace = createWorkspace('reasoning');
});
afterAll(async () => {
  workspace?.remove();
  await rig?.stop();
});

async function routing(body: unknown): Promise<void> {
  const response = await fetch(`${rig.pb.patchbay.url}/api/routing`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${rig.pb.patchbay.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

function claude(prompt: string) {
  return run(CLAUDE_BIN, ['-p', prompt, '--tools', 'Bash', '--allowedTools', 'Bash', '--output-format', 'json'], {
    cwd: workspace.project,
    env: { ...baseEnv(workspace.home), ...CLAUDE_QUIET_ENV, ANTHROPIC_BASE_URL: rig.pb.patchbay.url, ANTHROPIC_AUTH_TOKEN: rig.pb.key, ANTHROPIC_MODEL: MAIN, MAX_THINKING_TOKENS: '2048' },
  });
}

describe.skipIf(!agentsInstalled).each([
  ['OpenAI', 'openai/gpt-4o', 'openai'],
  ['Gemini 3', 'google/gemini-3-pro-preview', 'google'],
] as const)('Claude Code with thinking on, Anthropic -> %s -> Anthropic in one tool loop', (_name, fallback, provider) => {
  it('every step is answered; the step after the other provider goes without thinking and says so', async () => {
    await routing({ fallbacks: { [MAIN]: [fallback] } });
    const before = usageRows(rig.pb.patchbay).length;
    const sentBefore = rig.emulators.anthropic.requests.length;
    const out = await claude(`Run \`echo one\` and then \`echo two\`.`);
    expect(out.code, out.stderr + out.stdout).toBe(0);
    const resultLine = jsonLines(out.stdout).find((event) => event.type === 'result');
    expect(resultLine).toMatchObject({ is_error: false, result: 'Both ran.' });
    // A row per request the run made (a fallback's two attempts are one request's), written as each answer ends.
    const rows = await vi.waitFor(() => {
      const mine = usageRows(rig.pb.patchbay).slice(before);
      expect(mine.length).toBeGreaterThanOrEqual(3);
      return mine;
    });
    // Not one refusal on the way: Claude Code had nothing to retry.
    expect(rows.map((r) => [r.status, r.error_message])).toEqual([[200, null], [200, null], [200, null]]);
    expect(rows.map((r) => r.provider)).toEqual(['anthropic', provider, 'anthropic']);
    const sent = rig.emulators.anthropic.requests.slice(sentBefore).filter((r) => r.method === 'POST');
    const first = sent[0].body as { thinking?: { type: string } };
    expect(first.thinking?.type).toBe('enabled');
    const third = sent[2].body as { thinking?: unknown; messages: { role: string; content: { type: string; signature?: string }[] }[] };
    expect(third.thinking).toBeUndefined();
    expect(JSON.stringify(third.messages)).not.toContain('patchbay:');
    expect(JSON.parse(String(rows[2].adjustments)).dropped).toContain('thinking');
  });
});
