import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS, startRig, type ProviderName, type Rig } from '../helpers/conformance-matrix.ts';

/**
 * `role: "system"` messages inside Anthropic `messages`, as Claude Code 2.1.332 sends them
 * (observed 2026-11-29): after the first user message, its environment text as a system message
 * whose text block carries cache_control and whose message carries its own output_config (the
 * per-turn-control beta). Kept in place for the OpenAI-compatible providers, folded into Gemini's
 * systemInstruction, passed to Anthropic as sent; where a system message stands after an answer,
 * moving it changes what it means, and X-Patchbay-Adjusted says so.
 */

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(() => rig.stop());

type Body = Record<string, any>;

const ENVIRONMENT = '# Environment\nYou have been invoked in the following environment:\n - Platform: linux\n\nToday is 2026-11-29.';
const PLAN_MODE = 'The user switched to plan mode: do not edit files.';

/** Claude Code 2.1.332's first turn: the environment as a system message after the user's words. */
function firstTurn(model: string): Body {
  return {
    model,
    max_tokens: 4096,
    stream: true,
    system: [{ type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.332.31a; cc_entrypoint=sdk-cli;' }, { type: 'text', text: 'You are a Claude agent.', cache_control: { type: 'ephemeral' } }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: '<system-reminder>\nAttribution lines.\n</system-reminder>\n' }, { type: 'text', text: 'Say hello', cache_control: { type: 'ephemeral' } }] },
      { role: 'system', content: [{ type: 'text', text: ENVIRONMENT, cache_control: { type: 'ephemeral' } }], output_config: { effort: 'medium' } },
    ],
    thinking: { type: 'adaptive', display: 'omitted' },
    output_config: { effort: 'medium' },
  };
}

/** A later turn: an answer, then a system message at that point of the conversation, then the user. */
function laterTurn(model: string): Body {
  const first = firstTurn(model);
  return { ...first, messages: [...first.messages, { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] }, { role: 'system', content: PLAN_MODE }, { role: 'user', content: 'Now fix the bug' }] };
}

async function send(body: Body): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${rig.pb.patchbay.url}/v1/messages?beta=true`, {
    method: 'POST',
    headers: { authorization: `Bearer ${rig.pb.key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'claude-code-20250219,per-turn-control-2026-07-01,mid-conversation-tool-changes-2026-07-01' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The roles and texts the upstream received, in order, from its own wire. */
function received(provider: ProviderName, body: Body): { system: string[]; turns: [string, string][] } {
  const text = (content: unknown): string => (typeof content === 'string' ? content : ((content as Body[] | undefined) ?? []).map((p) => p.text ?? '').join(''));
  if (provider === 'google') return { system: (body.systemInstruction?.parts ?? []).map((p: Body) => p.text), turns: body.contents.map((c: Body) => [c.role, text(c.parts)]) };
  if (provider === 'anthropic') return { system: (body.system ?? []).map((b: Body) => b.text), turns: body.messages.map((m: Body) => [m.role, text(m.content)]) };
  return { system: [], turns: body.messages.map((m: Body) => [m.role, text(m.content)]) };
}

describe.each(PROVIDERS.filter((p) => ['openai', 'groq', 'together'].includes(p.name)).map((p) => [p.name, p] as const))('system messages to %s (OpenAI-compatible)', (name, provider) => {
  it('stay where they stand, as system messages; nothing is said to have changed', async () => {
    for (const body of [firstTurn(provider.chat), laterTurn(provider.chat)]) {
      const answer = await send(body);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.headers.get('x-patchbay-adjusted')).toBeNull();
      expect(answer.headers.get('x-patchbay-dropped') ?? '').not.toContain('messages[');
    }
    const { turns } = received(name, rig.emulators[name].requests.at(-1)!.body as Body);
    expect(turns.map(([role]) => role)).toEqual(['system', 'user', 'system', 'assistant', 'system', 'user']);
    expect(turns[2][1]).toBe(ENVIRONMENT);
    expect(turns[4][1]).toBe(PLAN_MODE);
  });
});

describe('system messages to google (Gemini)', () => {
  const provider = PROVIDERS.find((p) => p.name === 'google')!;

  it('fold into systemInstruction in order, each its own part; one standing after an answer is said to have moved', async () => {
    const first = await send(firstTurn(provider.chat));
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('x-patchbay-adjusted')).toBeNull();
    expect(received('google', rig.emulators.google.requests.at(-1)!.body as Body)).toEqual({
      system: [expect.stringContaining('You are a Claude agent.'), ENVIRONMENT],
      turns: [['user', expect.stringContaining('Say hello')]],
    });

    const later = await send(laterTurn(provider.chat));
    expect(later.status, later.text).toBe(200);
    expect(later.headers.get('x-patchbay-adjusted')).toBe('messages[3]=systemInstruction (Gemini has no system turn inside a conversation)');
    const { system, turns } = received('google', rig.emulators.google.requests.at(-1)!.body as Body);
    expect(system.slice(1)).toEqual([ENVIRONMENT, PLAN_MODE]);
    expect(turns.map(([role]) => role)).toEqual(['user', 'model', 'user']);
  });
});

describe('system messages to anthropic', () => {
  const provider = PROVIDERS.find((p) => p.name === 'anthropic')!;

  it('reach Anthropic as Claude Code sent them (pass-through), their cache_control and output_config included', async () => {
    const body = laterTurn(provider.chat);
    const answer = await send(body);
    expect(answer.status, answer.text).toBe(200);
    const sent = rig.emulators.anthropic.requests.at(-1)!.body as Body;
    expect(sent.messages).toEqual(body.messages);
    expect(answer.headers.get('x-patchbay-adjusted')).toBeNull();
  });

  it('from an OpenAI chat client, one standing after an answer joins the top-level system prompt and is said to have moved', async () => {
    const response = await fetch(`${rig.pb.patchbay.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rig.pb.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: provider.chat, messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello.' }, { role: 'system', content: PLAN_MODE }, { role: 'user', content: 'Fix it' }] }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(response.headers.get('x-patchbay-adjusted')).toBe('messages[3]=system (the top-level system prompt: Anthropic takes no system turn inside a conversation here)');
    expect(received('anthropic', rig.emulators.anthropic.requests.at(-1)!.body as Body).system).toEqual(['Be terse.', PLAN_MODE]);
  });
});

describe.each(PROVIDERS.filter((p) => p.name !== 'anthropic').map((p) => [p.name, p] as const))('a message-level output_config to %s', (_name, provider) => {
  it('agreeing with the request is the request effort; one saying something else is named as left out', async () => {
    const same = await send(firstTurn(provider.chat));
    expect(same.status, same.text).toBe(200);
    expect(same.headers.get('x-patchbay-dropped') ?? '').not.toContain('messages[1].output_config');
    const body = firstTurn(provider.chat);
    body.messages[1].output_config = { effort: 'low', format: { type: 'json_schema', schema: { type: 'object' } } };
    const other = await send(body);
    expect(other.status, other.text).toBe(200);
    expect(other.headers.get('x-patchbay-dropped')!.split(', ')).toEqual(expect.arrayContaining(['messages[1].output_config.effort', 'messages[1].output_config.format']));
  });
});
