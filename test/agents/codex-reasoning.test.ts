import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AnthropicEmulator } from '../emulators/anthropic-emulator.ts';
import type { ModelScript } from '../emulators/emulator-common.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, usageRows, type TestPatchbay } from '../helpers/start-patchbay.ts';
import { codexEvents, readmeCodexConfig } from './agent-rig.ts';
import { CODEX_BIN, agentsInstalled, baseEnv, createWorkspace, run, type Workspace } from './run-agent.ts';

/**
 * The real Codex CLI with reasoning on (encrypted reasoning items replayed every turn) in a
 * two-step exec_command loop that moves OpenAI -> Anthropic -> OpenAI: OpenAI answers the first
 * step with its reasoning and a call, answers the second with a 500 so the configured fallback
 * (Claude, thinking from the reasoning effort) serves it, and the third comes back to OpenAI. The
 * emulators check what the providers do: OpenAI its encrypted reasoning, Anthropic its thinking
 * signatures and that, with thinking enabled, the turn a tool result answers begins with its thinking.
 */

const KEYS = { openai: 'sk-agent-codex-reasoning', anthropic: 'sk-ant-agent-codex-reasoning' };
const MAIN = 'openai/gpt-4o';

let openai: OpenAiEmulator;
let anthropic: AnthropicEmulator;
let pb: TestPatchbay;
let workspace: Workspace;

/** Two shell commands, one after the other, then the answer; OpenAI's model sends the step after its first to the fallback. */
const script: ModelScript = (view) => {
  const ask = view.messages.map((m) => m.role).lastIndexOf('user');
  const done = view.messages.slice(ask + 1).filter((m) => m.role === 'tool').length;
  const commands = /Run `([^`]+)` and then `([^`]+)`/.exec(view.lastUserText);
  if (!commands || !view.tools.includes('exec_command')) return { text: 'OK' };
  if (done === 0) openai.inject({ path: '/responses', status: 500 });
  if (done < 2) return { tool: 'exec_command', input: { cmd: commands[done + 1] } };
  return { text: 'Both ran.' };
};

beforeAll(async () => {
  openai = new OpenAiEmulator({ apiKey: KEYS.openai });
  anthropic = new AnthropicEmulator({ apiKey: KEYS.anthropic });
  const [o, a] = await Promise.all([openai.start(), anthropic.start()]);
  openai.script = script;
  anthropic.script = script;
  pb = await startPatchbay({
    config: { providers: { openai: { baseUrl: `${o}/v1` }, anthropic: { baseUrl: `${a}/v1` } }, routing: { fallbacks: { [MAIN]: ['anthropic/claude-haiku-4-5-20251001'] } } },
    env: { OPENAI_API_KEY: KEYS.openai, ANTHROPIC_API_KEY: KEYS.anthropic },
  });
  workspace = createWorkspace('codex-reasoning');
});
afterAll(async () => {
  workspace?.remove();
  await pb?.stop();
  await Promise.all([openai?.close(), anthropic?.close()]);
});

describe.skipIf(!agentsInstalled)('Codex with reasoning on, OpenAI -> Anthropic -> OpenAI in one tool loop', () => {
  it('every step is answered: Claude gets none of OpenAI\'s encrypted reasoning and answers the OpenAI tool turn without thinking, OpenAI gets its own reasoning back', async () => {
    const codexHome = join(workspace.home, '.codex');
    mkdirSync(codexHome);
    writeFileSync(join(codexHome, 'config.toml'), readmeCodexConfig(pb.patchbay.url, MAIN));
    const out = await run(
      CODEX_BIN,
      ['exec', '--json', '--skip-git-repo-check', '-c', 'model_supports_reasoning_summaries=true', '-c', 'model_reasoning_effort="low"', 'Run `echo one` and then `echo two`.'],
      { cwd: workspace.project, env: { ...baseEnv(workspace.home), CODEX_HOME: codexHome, PATCHBAY_KEY: pb.key } },
    );
    const events = codexEvents(out.stdout);
    expect(events.failed, JSON.stringify(events.failed) + out.stderr).toBeUndefined();
    expect(events.messages.at(-1)).toBe('Both ran.');
    const rows = await vi.waitFor(() => {
      const all = usageRows(pb.patchbay);
      expect(all.length).toBeGreaterThanOrEqual(3);
      return all;
    });
    expect(rows.map((r) => [r.provider, r.status])).toEqual([['openai', 200], ['anthropic', 200], ['openai', 200]]);
    const toClaude = anthropic.requests.filter((r) => r.method === 'POST').at(-1)!.body as { thinking?: unknown };
    expect(toClaude.thinking).toBeUndefined();
    expect(JSON.parse(String(rows[1].adjustments)).dropped).toEqual(expect.arrayContaining(['reasoning signed elsewhere (1)', 'thinking']));
    // OpenAI's own reasoning went back to it; nothing Patchbay sealed for another provider did.
    const last = openai.requests.filter((r) => r.path.endsWith('/responses')).at(-1)!.body as { reasoning?: unknown; input: { type?: string; encrypted_content?: string }[] };
    expect(last.reasoning).toBeDefined();
    expect(last.input.filter((i) => i.type === 'reasoning').map((i) => i.encrypted_content)).toEqual([expect.stringMatching(/^gAAAA/)]);
    expect(JSON.stringify(last.input)).not.toContain('patchbay:');
  });
});
