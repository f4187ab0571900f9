import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Rig } from '../helpers/conformance-matrix.ts';
import { PROVIDERS, callsSince, exportsOf, expectInOrder, mainCalls, mark, providersReached, readmeBlock, rowsSince, startAgentRig, toolNames, type ProviderCase } from './agent-rig.ts';
import { CLAUDE_BIN, CLAUDE_QUIET_ENV, agentsInstalled, baseEnv, createWorkspace, jsonLines, run, type Workspace } from './run-agent.ts';

/**
 * The real Claude Code (`claude -p`, test/agents/package.json) configured as the README's recipe
 * says, against Patchbay in front of each provider's emulator. The emulated model follows
 * scripted-model.ts, so each step is predictable; the tests look at what the program printed, what
 * each provider received and the usage rows Patchbay wrote.
 */

let rig: Rig;
let workspace: Workspace;
beforeAll(async () => {
  rig = await startAgentRig();
  workspace = createWorkspace('claude');
});
afterAll(async () => {
  workspace?.remove();
  await rig?.stop();
});

/** The README's two variables, with this Patchbay's address and key in place of the examples. */
function readmeEnv(): Record<string, string> {
  const recipe = exportsOf(readmeBlock(/^### Claude Code by hand/m, 'sh'));
  expect(Object.keys(recipe)).toEqual(['ANTHROPIC_BASE_URL', 'ANTHROPIC_AUTH_TOKEN']);
  return { ANTHROPIC_BASE_URL: recipe.ANTHROPIC_BASE_URL.replace('http://127.0.0.1:8790', rig.pb.patchbay.url), ANTHROPIC_AUTH_TOKEN: recipe.ANTHROPIC_AUTH_TOKEN.replace('$PATCHBAY_KEY', rig.pb.key) };
}

function claude(args: string[], env: Record<string, string>) {
  return run(CLAUDE_BIN, ['-p', ...args, '--tools', 'Bash', '--allowedTools', 'Bash'], { cwd: workspace.project, env: { ...baseEnv(workspace.home), ...CLAUDE_QUIET_ENV, ...readmeEnv(), ...env } });
}

function result(stdout: string): Record<string, any> {
  const line = jsonLines(stdout).find((event) => event.type === 'result');
  expect(line, stdout).toBeDefined();
  return line!;
}

const word = (prefix: string) => `${prefix}-${Math.random().toString(36).slice(2, 8)}`;

describe.skipIf(!agentsInstalled).each(PROVIDERS.map((p) => [p.name, p] as [string, ProviderCase]))('Claude Code via %s', (name, provider) => {
  const env = () => ({ ANTHROPIC_MODEL: provider.chat });

  it('answers a text turn from the provider, with a usage row', async () => {
    const at = await mark(rig);
    const said = word('pineapple');
    const out = await claude([`Say ${said}.`, '--output-format', 'json'], env());
    expect(out.code, out.stderr + out.stdout).toBe(0);
    expect(result(out.stdout)).toMatchObject({ is_error: false, result: said });
    expect(providersReached(rig, at)).toEqual({ [name]: 1 });
    const [call] = callsSince(rig, at, provider.name);
    expect(JSON.stringify(call.body)).toContain(`Say ${said}.`);
    expect((await rowsSince(rig, at))).toMatchObject([{ endpoint: 'messages', provider: name, model: provider.servedChat, status: 200, stream: 1 }]);
    expect((await rowsSince(rig, at))[0].prompt_tokens).toBeGreaterThan(0);
  });

  it('runs Bash when the model asks and answers from its output (stream-json)', async () => {
    const at = await mark(rig);
    const out = await claude([`Run the shell command \`cat ${workspace.tokenFile}\` and tell me the token.`, '--output-format', 'stream-json', '--verbose'], env());
    expect(out.code, out.stderr + out.stdout).toBe(0);
    const events = jsonLines(out.stdout);
    // The stream: init, the model's Bash call, the tool's result, the answer, the result line.
    expect(events[0]).toMatchObject({ type: 'system', subtype: 'init', model: provider.chat });
    const toolUse = events.flatMap((e) => (e.type === 'assistant' ? e.message.content : [])).find((b: any) => b.type === 'tool_use');
    expect(toolUse).toMatchObject({ name: 'Bash', input: { command: `cat ${workspace.tokenFile}` } });
    const toolResult = events.flatMap((e) => (e.type === 'user' ? e.message.content : [])).find((b: any) => b.type === 'tool_result');
    expect(toolResult).toMatchObject({ tool_use_id: toolUse.id });
    expect(JSON.stringify(toolResult.content)).toContain(workspace.token);
    expect(result(out.stdout)).toMatchObject({ is_error: false, result: `The token is ${workspace.token}.`, num_turns: 2 });

    // The provider was offered Bash, then received the command's output with the call it answers.
    const calls = mainCalls(callsSince(rig, at, provider.name), 'Bash');
    expect(calls).toHaveLength(2);
    expect(toolNames(calls[0].body)).toContain('Bash');
    expect(JSON.stringify(calls[0].body)).not.toContain(workspace.token);
    if (name === 'anthropic') {
      // Passed through: what Claude Code marked deferred reaches Anthropic so marked (Anthropic keeps such tools out of the model's view).
      // (For a Claude model Claude Code defers nothing here: Bash is its only tool.) Its own fields arrive as it sent them.
      expect(Object.keys(calls[0].body as object)).toEqual(expect.arrayContaining(['thinking', 'context_management', 'metadata', 'system', 'tools']));
    } else {
      // A translated upstream has no deferred loading: a tool Claude Code deferred is not offered (needs lane agents-claude).
      expect(toolNames(calls[0].body)).not.toContain('DeferredToolPlaceholder');
    }
    if (name === 'openai') {
      // Claude Code asks for 32,000; gpt-4o's output limit is 16,384 and OpenAI refuses more (needs lane agents-claude).
      const body = calls[0].body as { max_tokens?: number; max_completion_tokens?: number };
      expect(body.max_completion_tokens ?? body.max_tokens).toBeLessThanOrEqual(16_384);
    }
    expectInOrder(calls[1].body, ['Bash', `cat ${workspace.tokenFile}`, workspace.token]);
    // A row for every call, the two turns and any background call Claude Code made meanwhile.
    const rows = (await rowsSince(rig, at));
    expect(rows, JSON.stringify(rows.map((r) => [r.provider, r.status, r.error_type, r.stream, r.prompt_tokens]))).toHaveLength(callsSince(rig, at, provider.name).length);
    for (const row of rows) expect(row).toMatchObject({ endpoint: 'messages', provider: name, model: provider.servedChat, status: 200 });
  });

  it('keeps a three-turn session (--resume, then --continue), replaying the history', async () => {
    const at = await mark(rig);
    const [first, second] = [word('alpha'), word('beta')];
    const one = await claude([`Remember the word ${first}.`, '--output-format', 'json'], env());
    expect(one.code, one.stderr + one.stdout).toBe(0);
    const session = result(one.stdout).session_id as string;
    expect(result(one.stdout).result).toBe(`Noted ${first}.`);
    const two = await claude(['--resume', session, `Remember the word ${second}.`, '--output-format', 'json'], env());
    expect(result(two.stdout)).toMatchObject({ session_id: session, result: `Noted ${second}.` });
    const three = await claude(['--continue', 'What was the first word?', '--output-format', 'json'], env());
    expect(result(three.stdout)).toMatchObject({ session_id: session, result: `The first word was ${first}.` });

    const calls = mainCalls(callsSince(rig, at, provider.name), 'Bash');
    expect(calls).toHaveLength(3);
    expectInOrder(calls[2].body, [`Remember the word ${first}.`, `Noted ${first}.`, `Remember the word ${second}.`, `Noted ${second}.`, 'What was the first word?']);
    expect((await rowsSince(rig, at)).filter((row) => row.provider === name && row.status === 200)).toHaveLength(callsSince(rig, at, provider.name).length);
  });
});

describe.skipIf(!agentsInstalled)('Claude Code model variables', () => {
  it('sends each tier to the model its variable names: main, opus, sonnet and haiku', async () => {
    const env = {
      ANTHROPIC_MODEL: 'openai/gpt-4o',
      ANTHROPIC_DEFAULT_OPUS_MODEL: 'together/meta-llama/Llama-3.3-70B-Instruct-Turbo',
      ANTHROPIC_DEFAULT_SONNET_MODEL: 'groq/llama-3.3-70b-versatile',
      ANTHROPIC_DEFAULT_HAIKU_MODEL: 'google/gemini-2.5-flash',
    };
    for (const [flag, provider] of [[[], 'openai'], [['--model', 'opus'], 'together'], [['--model', 'sonnet'], 'groq'], [['--model', 'haiku'], 'google']] as const) {
      const at = await mark(rig);
      const said = word('tier');
      const out = await claude([...flag, `Say ${said}.`, '--output-format', 'json'], env);
      expect(out.code, out.stderr + out.stdout).toBe(0);
      expect(result(out.stdout).result).toBe(said);
      expect(providersReached(rig, at), `${flag.join(' ') || 'no --model'}`).toEqual({ [provider]: 1 });
    }
  });
});
