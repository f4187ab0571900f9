// A scripted Claude Code session replayed through the real Patchbay (composition root, real HTTP on
// loopback) against the test emulators, twice: without routing rules (every request on the model
// Claude Code asked for) and with rules that send its compactions, background calls and Explore
// subagent elsewhere (routing.rules, issue 36). Reports the cost per request class from the usage
// rows Patchbay wrote, and the total. Not part of npm test.
//
//   node bench/agent-rules.ts [--turns 30] [--compact-every 10]
//
// The session, as Claude Code 2.1.332 sends it with CLAUDE_CODE_GATEWAY_HINT_HEADERS=1 (request
// class, agent type and compaction headers; its session id): a 3,000-word system prompt and 12
// tools (its fixed prefix, marked for Anthropic's prompt cache as Claude Code marks it), then each
// main turn adds a 150-word user message, the model's answer and a 400-word tool result on
// claude-sonnet-4-5; after every 3rd turn a background call on the Haiku tier (a title, a summary:
// request class auxiliary); every `--compact-every` turns a compaction (the whole conversation and
// a summary request), after which the conversation restarts from the summary; and once an Explore
// subagent of 8 turns over its own 600-word tool results. Token counts are the emulators' (words)
// and prices the catalog's list prices (cache reads and writes at Anthropic's), so the figures are
// ratios to read, not bills to expect.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPatchbay } from '../core/app/create-patchbay.ts';
import { AnthropicEmulator } from '../test/emulators/anthropic-emulator.ts';
import { GeminiEmulator } from '../test/emulators/gemini-emulator.ts';
import { GroqEmulator } from '../test/emulators/groq-emulator.ts';
import { OpenAiEmulator } from '../test/emulators/openai-emulator.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const TURNS = option('--turns', 30);
const COMPACT_EVERY = option('--compact-every', 10);
const KEYS = { ANTHROPIC_API_KEY: 'sk-ant-bench-rules', OPENAI_API_KEY: 'sk-bench-rules', GEMINI_API_KEY: 'AIza-bench-rules', GROQ_API_KEY: 'gsk-bench-rules' };
const MAIN = 'claude-sonnet-4-5';
const HAIKU = 'claude-haiku-4-5';
const RULES = [
  { name: 'compaction', when: { requestClass: 'compaction' }, model: 'google/gemini-2.5-flash' },
  { name: 'background', when: { requestClass: 'auxiliary' }, model: 'groq/llama-3.1-8b-instant' },
  { name: 'explore', when: { requestClass: 'subagent', agentType: 'Explore' }, model: 'google/gemini-2.5-flash' },
];

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');
const TOOLS = Array.from({ length: 12 }, (_, i) => ({ name: `tool_${i}`, description: words(40, `d${i}_`), input_schema: { type: 'object', properties: { path: { type: 'string' } } } }));
// Each run's own system prompt: the emulators keep their prompt caches across runs, and one run must not read another's.
const systemOf = (label: string) => [{ type: 'text', text: `${label}: ${words(3000, 'sys')}`, cache_control: { type: 'ephemeral' } }];

const emulators = {
  anthropic: new AnthropicEmulator({ apiKey: KEYS.ANTHROPIC_API_KEY }),
  openai: new OpenAiEmulator({ apiKey: KEYS.OPENAI_API_KEY }),
  google: new GeminiEmulator({ apiKey: KEYS.GEMINI_API_KEY }),
  groq: new GroqEmulator({ apiKey: KEYS.GROQ_API_KEY }),
};
const [a, o, g, q] = await Promise.all([emulators.anthropic.start(), emulators.openai.start(), emulators.google.start(), emulators.groq.start()]);
const providers = { anthropic: { baseUrl: `${a}/v1` }, openai: { baseUrl: `${o}/v1` }, google: { baseUrl: `${g}/v1beta` }, groq: { baseUrl: `${q}/openai/v1` } };

type Message = { role: 'user' | 'assistant'; content: unknown };
interface ClassSums {
  requests: number;
  input: number;
  output: number;
  usd: number;
  providers: Set<string>;
}

/** One run of the scripted session; the cost per request class from Patchbay's usage rows. */
async function run(label: string, rules: unknown[]): Promise<Map<string, ClassSums>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-bench-rules-'));
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ providers, routing: { rules } }));
  const pb = await createPatchbay({ dataDir, host: '127.0.0.1', port: 0, env: KEYS, keychainService: `patchbay-bench-rules-${process.pid}`, log: () => undefined });
  const key = pb.keys.create({ name: 'bench' }).secret;
  const session = `bench-rules-${label}`;
  const send = async (model: string, messages: Message[], hints: Record<string, string>, system: unknown = systemOf(label)) => {
    const response = await fetch(`${pb.url}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-claude-code-session-id': session, ...hints },
      body: JSON.stringify({ model, max_tokens: 4096, system, tools: TOOLS, tool_choice: { type: 'none' }, messages }),
    });
    const body = (await response.json()) as { content?: { type: string; text?: string }[] };
    if (response.status !== 200) throw new Error(`${label}: ${response.status} ${JSON.stringify(body)}`);
    return body.content?.find((b) => b.type === 'text')?.text ?? '';
  };
  try {
    let conversation: Message[] = [];
    for (let turn = 1; turn <= TURNS; turn++) {
      conversation.push({ role: 'user', content: [{ type: 'text', text: `turn ${turn}: ${words(150, `t${turn}_`)}`, cache_control: { type: 'ephemeral' } }] });
      const answer = await send(MAIN, conversation, { 'x-claude-code-request-class': 'main' });
      conversation.push({ role: 'assistant', content: answer });
      conversation.push({ role: 'user', content: `tool result ${turn}: ${words(400, `r${turn}_`)}` });
      conversation.push({ role: 'assistant', content: 'Noted.' });
      if (turn % 3 === 0) await send(HAIKU, [{ role: 'user', content: `Write a title for: ${words(200, `s${turn}_`)}` }], { 'x-claude-code-request-class': 'auxiliary' }, 'Write a 5-word title.');
      if (turn === Math.ceil(TURNS / 2)) {
        // The Explore subagent: its own conversation, on the main model unless a rule says otherwise.
        let sub: Message[] = [{ role: 'user', content: `Explore the code base for ${words(80, 'task')}` }];
        for (let step = 1; step <= 8; step++) {
          const found = await send(MAIN, sub, { 'x-claude-code-request-class': 'subagent', 'x-claude-code-agent-type': 'Explore', 'x-claude-code-agent-id': `${session}-explore` }, `${label}: ${words(1500, 'explore')}`);
          sub = [...sub, { role: 'assistant', content: found }, { role: 'user', content: `file ${step}: ${words(600, `f${step}_`)}` }];
        }
      }
      if (turn % COMPACT_EVERY === 0) {
        const summary = await send(MAIN, [...conversation, { role: 'user', content: 'Summarise the conversation so far for a fresh start.' }], { 'x-claude-code-request-class': 'compaction', 'x-claude-code-compaction': 'auto' });
        conversation = [{ role: 'user', content: `Summary of the earlier conversation: ${summary}` }, { role: 'assistant', content: 'Understood.' }];
      }
    }
    pb.usage.flush();
    const rows = pb.db.prepare('SELECT request_class, provider, prompt_tokens, completion_tokens, cost_usd FROM usage').all() as { request_class: string | null; provider: string; prompt_tokens: number; completion_tokens: number; cost_usd: number }[];
    const byClass = new Map<string, ClassSums>();
    for (const row of rows) {
      const sums = byClass.get(row.request_class ?? '-') ?? { requests: 0, input: 0, output: 0, usd: 0, providers: new Set<string>() };
      sums.requests++;
      sums.input += row.prompt_tokens;
      sums.output += row.completion_tokens;
      sums.usd += row.cost_usd;
      sums.providers.add(row.provider);
      byClass.set(row.request_class ?? '-', sums);
    }
    return byClass;
  } finally {
    await pb.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

try {
  const without = await run('without', []);
  const withRules = await run('with', RULES);
  console.log(`\nA scripted Claude Code session (${TURNS} main turns, a compaction every ${COMPACT_EVERY}, a background call every 3rd turn, one 8-turn Explore subagent) on ${MAIN}:`);
  console.log('without routing rules, and with rules sending compactions and the Explore subagent to gemini-2.5-flash and background calls to llama-3.1-8b (Groq).\n');
  console.log('| request class | requests | input tokens | output tokens | cost without rules | cost with rules | served with rules by |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | --- |');
  let total = [0, 0];
  for (const [requestClass, sums] of without) {
    const ruled = withRules.get(requestClass)!;
    total = [total[0] + sums.usd, total[1] + ruled.usd];
    console.log(`| ${requestClass} | ${sums.requests} | ${sums.input.toLocaleString('en')} | ${sums.output.toLocaleString('en')} | $${sums.usd.toFixed(4)} | $${ruled.usd.toFixed(4)} | ${[...ruled.providers].join(', ')} |`);
  }
  console.log(`| **total** | | | | **$${total[0].toFixed(4)}** | **$${total[1].toFixed(4)}** (${((100 * (total[0] - total[1])) / total[0]).toFixed(1)} % less) | |`);
} finally {
  await Promise.all(Object.values(emulators).map((e) => e.close()));
}
