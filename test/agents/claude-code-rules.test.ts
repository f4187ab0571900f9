import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ModelScript } from '../emulators/emulator-common.ts';
import type { Rig } from '../helpers/conformance-matrix.ts';
import { usageRows } from '../helpers/start-patchbay.ts';
import { mark, rowsSince, startAgentRig } from './agent-rig.ts';
import { CLAUDE_BIN, CLAUDE_QUIET_ENV, agentsInstalled, baseEnv, createWorkspace, jsonLines, run, type Workspace } from './run-agent.ts';

/**
 * The real Claude Code (test/agents/package.json, 2.1.332) with its gateway hint headers on
 * (CLAUDE_CODE_GATEWAY_HINT_HEADERS=1, as `patchbay claude` sets it) against Patchbay with
 * routing.rules: its main turns stay on the model it asked for, and its compaction (`/compact`),
 * an Explore subagent (the Agent tool) and a background call (a prompt hook, which Claude Code
 * answers on its Haiku tier as an auxiliary request) go where the rules say; the Sessions API sums
 * the session's cost per request class.
 */

const RULES = [
  { name: 'compaction', when: { requestClass: 'compaction' }, model: 'google/gemini-2.5-flash' },
  { name: 'explore', when: { requestClass: 'subagent', agentType: 'Explore' }, model: 'openai/gpt-4o' },
  { name: 'background', when: { requestClass: 'auxiliary' }, model: 'groq/llama-3.3-70b-versatile' },
];
const MAIN = 'anthropic/claude-haiku-4-5-20251001';
const HOOK = 'HOOK-CHECK';

/**
 * The emulated model of every provider: a prompt hook's check is answered "ok"; "Ask a subagent to
 * say W." calls the Agent tool for an Explore subagent (in the foreground); the subagent's "Say W."
 * is answered W; the main agent answers from the subagent's report; anything else "OK".
 */
const script: ModelScript = (view) => {
  if (view.messages.some((m) => JSON.stringify(m.content).includes(HOOK))) return { text: '{"ok": true}' };
  const ask = view.lastUserText;
  const word = /Ask a subagent to say (\S+?)\./.exec(ask)?.[1];
  // The subagent's report comes back inside Claude Code's own notes: say whether it holds the word.
  if (view.toolResults) return { text: word && view.toolResults.join('\n').includes(word) ? `The subagent said: ${word}` : 'The subagent said something else.' };
  if (word && view.tools.includes('Agent')) return { tool: 'Agent', input: { description: 'Say the word', prompt: `Say ${word}.`, subagent_type: 'Explore', run_in_background: false } };
  const say = /Say (\S+?)\./.exec(ask)?.[1];
  if (say) return { text: say };
  return { text: 'OK' };
};

let rig: Rig;
let workspace: Workspace;
beforeAll(async () => {
  rig = await startAgentRig();
  for (const emulator of Object.values(rig.emulators)) emulator.script = script;
  workspace = createWorkspace('rules');
  const response = await fetch(`${rig.pb.patchbay.url}/api/routing`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${rig.pb.patchbay.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ rules: RULES }),
  });
  expect(response.status).toBe(200);
});
afterAll(async () => {
  workspace?.remove();
  await rig?.stop();
});

function claude(args: string[]) {
  return run(CLAUDE_BIN, ['-p', ...args, '--output-format', 'json'], {
    cwd: workspace.project,
    env: { ...baseEnv(workspace.home), ...CLAUDE_QUIET_ENV, ANTHROPIC_BASE_URL: rig.pb.patchbay.url, ANTHROPIC_AUTH_TOKEN: rig.pb.key, CLAUDE_CODE_GATEWAY_HINT_HEADERS: '1', ANTHROPIC_MODEL: MAIN },
  });
}

function result(stdout: string): Record<string, any> {
  const line = jsonLines(stdout).find((event) => event.type === 'result');
  expect(line, stdout).toBeDefined();
  return line!;
}

/** Each row since the mark as [request class, provider]. */
const classes = async (at: Awaited<ReturnType<typeof mark>>) => (await rowsSince(rig, at)).map((row) => [row.request_class, row.provider]);

describe.skipIf(!agentsInstalled)('Claude Code with routing rules', () => {
  let session = '';

  it('a main turn stays on the model Claude Code asked for, and says it is one', async () => {
    const at = await mark(rig);
    const out = await claude(['Say lychee.']);
    expect(out.code, out.stderr + out.stdout).toBe(0);
    expect(result(out.stdout).result).toBe('lychee');
    session = result(out.stdout).session_id;
    expect(await classes(at)).toEqual([['main', 'anthropic']]);
  });

  it('an Explore subagent goes to the model its rule names, the main turns around it do not', async () => {
    const at = await mark(rig);
    const out = await claude(['--resume', session, 'Ask a subagent to say quince.']);
    expect(out.code, out.stderr + out.stdout).toBe(0);
    expect(result(out.stdout).result).toContain('The subagent said: quince');
    const rows = await rowsSince(rig, at);
    expect(rows.filter((r) => r.request_class === 'subagent').map((r) => r.provider)).toEqual(['openai']);
    expect(rows.filter((r) => r.request_class === 'main').map((r) => r.provider)).toEqual(['anthropic', 'anthropic']);
    const subagent = rows.find((r) => r.request_class === 'subagent')!;
    expect(String(subagent.route_reason)).toMatch(/^rule "explore" \(routing\.rules\[1\]\) matched \(request class subagent, agent type Explore\)/);
    expect(subagent.agent_id).toBeTruthy();
  });

  it('a background call (a prompt hook, on the Haiku tier) goes where the auxiliary rule says', async () => {
    mkdirSync(join(workspace.project, '.claude'), { recursive: true });
    writeFileSync(join(workspace.project, '.claude', 'settings.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'prompt', prompt: `${HOOK}: answer ok if the assistant finished. $ARGUMENTS` }] }] } }));
    try {
      const at = await mark(rig);
      const out = await claude(['--resume', session, 'Say medlar.']);
      expect(out.code, out.stderr + out.stdout).toBe(0);
      expect(result(out.stdout).result).toBe('medlar');
      const rows = await rowsSince(rig, at);
      const auxiliary = rows.filter((r) => r.request_class === 'auxiliary');
      expect(auxiliary.length, JSON.stringify(rows.map((r) => [r.request_class, r.provider]))).toBeGreaterThan(0);
      for (const row of auxiliary) expect(row).toMatchObject({ provider: 'groq', route_reason: expect.stringMatching(/^rule "background" \(routing\.rules\[2\]\) matched \(request class auxiliary\)/) });
      expect(rows.filter((r) => r.request_class === 'main').map((r) => r.provider)).toEqual(['anthropic']);
    } finally {
      writeFileSync(join(workspace.project, '.claude', 'settings.json'), '{}');
    }
  });

  it('/compact sends the compaction where its rule says, and the Sessions API sums the session per request class', async () => {
    const at = await mark(rig);
    const out = await claude(['--resume', session, '/compact']);
    expect(out.code, out.stderr + out.stdout).toBe(0);
    const rows = await rowsSince(rig, at);
    const compactions = rows.filter((r) => r.request_class === 'compaction');
    expect(compactions.length, JSON.stringify(rows.map((r) => [r.request_class, r.provider]))).toBeGreaterThan(0);
    for (const row of compactions) expect(row).toMatchObject({ provider: 'google', route_reason: expect.stringContaining('rule "compaction" (routing.rules[0]) matched (request class compaction)') });

    const all = usageRows(rig.pb.patchbay).filter((r) => r.session_id === session);
    const page = await vi.waitFor(async () => {
      const response = await fetch(`${rig.pb.patchbay.url}/api/usage/sessions?session=${session}`, { headers: { authorization: `Bearer ${rig.pb.patchbay.adminToken}` } });
      const found = ((await response.json()) as { data: { requests: number; cost_usd: number; classes: { request_class: string; requests: number; cost_usd: number }[] }[] }).data[0];
      expect(found.requests).toBe(all.length);
      return found;
    });
    expect(page.classes.map((c) => c.request_class).sort()).toEqual(['auxiliary', 'compaction', 'main', 'subagent']);
    for (const entry of page.classes) {
      const mine = all.filter((r) => r.request_class === entry.request_class);
      expect(entry.requests).toBe(mine.length);
      expect(entry.cost_usd).toBeCloseTo(mine.reduce((sum, r) => sum + (r.cost_usd as number), 0), 9);
    }
  });
});
