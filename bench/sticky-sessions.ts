// A simulated 50-turn agent session on a model two providers serve (llama-3.3-70b on Groq and
// Together), under each routing strategy, before (X-Patchbay-Sticky: off, what every request got
// before sticky routing) and after (sticky on, the default): the share of input tokens read from a
// provider's prompt cache, the cost, and how often the provider changed. Then what the sticky step
// costs the planner per request. Not part of npm test.
//
//   node bench/sticky-sessions.ts [--turns 50] [--plans 210000]
//
// The session: a 2,000-word system prompt and 8 tools (an agent's fixed prefix), then each turn adds
// the model's reply and a ~150-word tool result, so the prefix grows as a real agent's does. It runs
// through the real Patchbay (composition root, real HTTP on loopback) against the test emulators of
// Groq and Together, each of which keeps its own prompt cache (test/emulators/emulator-common.ts:
// a prefix is read back only from the provider that saw it, from 1,024 tokens on, in 128-token
// steps). The two emulators answer at different speeds (Groq 4 ms, Together 9 ms) so latency has
// something to compare. Token counts are the emulators' (words), so the figures are ratios to read,
// not bills to expect.
//
// Cost: the catalog lists no cache price for either endpoint (Patchbay then bills cached tokens as
// input, which is never less than the truth), so cost is given twice: at catalog prices, and with
// cache reads at half the input price (Groq's documented prompt-caching discount; an assumption for
// Together).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPatchbay } from '../core/app/create-patchbay.ts';
import { createRouter } from '../core/app/create-router.ts';
import { parseConfig } from '../core/config/load-config.ts';
import type { Strategy } from '../core/config/config-schema.ts';
import { HealthTracker } from '../core/routing/health-tracker.ts';
import { hashPrefix, leadingMessages, toolNames } from '../core/routing/prefix-affinity.ts';
import type { RouteRequest } from '../core/routing/route-plan.ts';
import { KeychainSecretStore } from '../core/secrets/keychain-secret-store.ts';
import { GroqEmulator } from '../test/emulators/groq-emulator.ts';
import { TogetherEmulator } from '../test/emulators/together-emulator.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const TURNS = option('--turns', 50);
const PLANS = option('--plans', 210_000);
const STRATEGIES: Strategy[] = ['balanced', 'latency', 'cost', 'availability', 'round-robin'];
const KEYS = { GROQ_API_KEY: 'gsk-bench-sticky', TOGETHER_API_KEY: 'tg-bench-sticky' };
const PRICES: Record<string, { input: number; output: number }> = { groq: { input: 0.59, output: 0.79 }, together: { input: 0.88, output: 0.88 } };
const CACHE_READ_SHARE = 0.5;

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');
const TOOLS = Array.from({ length: 8 }, (_, i) => ({
  type: 'function',
  function: { name: `tool_${i}`, description: words(40, `d${i}_`), parameters: { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } }, required: ['path'] } },
}));

const groq = new GroqEmulator({ apiKey: KEYS.GROQ_API_KEY });
const together = new TogetherEmulator({ apiKey: KEYS.TOGETHER_API_KEY });
const groqUrl = `${await groq.start()}/openai/v1`;
const togetherUrl = `${await together.start()}/v1`;
groq.latencyMs = 4;
together.latencyMs = 9;

interface RunResult {
  strategy: Strategy;
  sticky: boolean;
  input: number;
  cached: number;
  output: number;
  catalogUsd: number;
  discountedUsd: number;
  changes: number;
  providers: Record<string, number>;
}

const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-sticky-bench-'));
const results: RunResult[] = [];
try {
  for (const strategy of STRATEGIES) {
    for (const sticky of [false, true]) {
      // A Patchbay of its own per run: health, round-robin turns and sticky memory start afresh.
      const runDir = mkdtempSync(join(dataDir, 'run-'));
      writeFileSync(join(runDir, 'config.json'), JSON.stringify({ providers: { groq: { baseUrl: groqUrl }, together: { baseUrl: togetherUrl } }, routing: { strategy } }));
      const pb = await createPatchbay({ dataDir: runDir, host: '127.0.0.1', port: 0, env: KEYS, keychainService: `patchbay-bench-sticky-${process.pid}`, log: () => undefined });
      const key = pb.keys.create({ name: 'bench' }).secret;
      // Each run's conversation is its own (the run's name in the system prompt), so no run reads another's cache.
      const messages: Record<string, unknown>[] = [{ role: 'system', content: `run ${strategy} ${sticky}. ${words(2000, 'sys')}` }];
      const result: RunResult = { strategy, sticky, input: 0, cached: 0, output: 0, catalogUsd: 0, discountedUsd: 0, changes: 0, providers: {} };
      let previous: string | null = null;
      for (let turn = 1; turn <= TURNS; turn++) {
        messages.push({ role: 'user', content: `turn ${turn}: ${words(150, `t${turn}_`)}` });
        const response = await fetch(`${pb.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-claude-code-session-id': `bench-${strategy}-${sticky}`, ...(sticky ? {} : { 'x-patchbay-sticky': 'off' }) },
          body: JSON.stringify({ model: 'llama-3.3-70b', messages, tools: TOOLS, tool_choice: 'none' }),
        });
        const body = (await response.json()) as { choices: { message: { content: string } }[]; usage: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens?: number } } };
        if (response.status !== 200) throw new Error(`turn ${turn}: ${response.status} ${JSON.stringify(body)}`);
        const provider = response.headers.get('x-patchbay-provider')!;
        messages.push({ role: 'assistant', content: body.choices[0].message.content });
        const cached = body.usage.prompt_tokens_details?.cached_tokens ?? 0;
        const price = PRICES[provider];
        result.input += body.usage.prompt_tokens;
        result.cached += cached;
        result.output += body.usage.completion_tokens;
        result.catalogUsd += (body.usage.prompt_tokens * price.input + body.usage.completion_tokens * price.output) / 1e6;
        result.discountedUsd += ((body.usage.prompt_tokens - cached * CACHE_READ_SHARE) * price.input + body.usage.completion_tokens * price.output) / 1e6;
        result.providers[provider] = (result.providers[provider] ?? 0) + 1;
        if (previous !== null && provider !== previous) result.changes++;
        previous = provider;
      }
      results.push(result);
      await pb.close();
    }
  }
} finally {
  await Promise.all([groq.close(), together.close()]);
}

console.log(`\n${TURNS}-turn agent session on llama-3.3-70b (Groq and Together), per strategy: before = X-Patchbay-Sticky: off, after = sticky (default)\n`);
console.log('| strategy | sticky | input tokens | read from cache | cost, catalog prices | cost, cache reads at ½ input | provider changes | turns per provider |');
console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |');
for (const r of results) {
  console.log(
    `| ${r.strategy} | ${r.sticky ? 'after (on)' : 'before (off)'} | ${r.input.toLocaleString('en')} | ${((100 * r.cached) / r.input).toFixed(1)} % | $${r.catalogUsd.toFixed(5)} | $${r.discountedUsd.toFixed(5)} | ${r.changes} | ${Object.entries(r.providers).map(([p, n]) => `${p} ${n}`).join(', ')} |`,
  );
}

// What the sticky step costs the planner: the same request planned PLANS times, in one run, three ways.
const config = parseConfig({ routing: { strategy: 'round-robin' } }, null);
const health = new HealthTracker({ ...config.breaker, windowSize: config.healthWindow.size, windowMs: config.healthWindow.maxAgeMs });
const { router } = createRouter(config, new KeychainSecretStore(KEYS, `patchbay-bench-sticky-${process.pid}`), health);
const agentMessages = [{ role: 'system', content: words(2000, 'sys') }, { role: 'user', content: words(150, 'u') }, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'next' }];
const base: RouteRequest = {
  operation: 'chat',
  model: 'llama-3.3-70b',
  needs: [{ capability: 'tools', param: 'tools' }],
  strategy: undefined,
  fallbackModels: [],
  stream: true,
  prompt: { bytes: 20_000, pieces: [], ids: 0 },
  maxTokens: 1024,
  allowedModels: null,
};
const variants: [string, RouteRequest][] = [
  ['sticky off (the planner before this change did the same work)', { ...base, sticky: false }],
  ['session id (sticky lookup and reorder)', { ...base, session: 'bench-session-0001' }],
  ['no session id: prefix hash (tool names, system and first user message of a 20 KB prompt)', { ...base, affinity: () => hashPrefix([toolNames(TOOLS), leadingMessages(agentMessages)]) }],
];
// The session's endpoint is remembered once, so the lookup finds it (the common case in a session).
const first = router.plan(variants[1][1]);
const plan = first instanceof Promise ? await first : first;
router.sticky.remember(plan.sticky!.key, plan.candidates[0].id, Date.now());
const timings: number[][] = variants.map(() => []);
// Interleaved rounds: the machine's other load falls on every variant alike. The fastest round is
// the plan's own cost with the least interference; the median, what a busy machine sees.
const ROUNDS = 21;
for (let round = 0; round < ROUNDS; round++) {
  variants.forEach(([, request], i) => {
    const started = process.hrtime.bigint();
    for (let n = 0; n < PLANS / ROUNDS; n++) router.plan(request);
    timings[i].push(Number(process.hrtime.bigint() - started) / (PLANS / ROUNDS));
  });
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
const fastest = (values: number[]) => Math.min(...values);
console.log(`\nrouter.plan() per request, ${ROUNDS} interleaved rounds of ${Math.round(PLANS / ROUNDS).toLocaleString('en')}, one run (ratios are the figure to read on a shared machine):\n`);
console.log('| request | ns per plan, fastest round | vs sticky off | ns per plan, median round | vs sticky off |\n| --- | ---: | ---: | ---: | ---: |');
variants.forEach(([name], i) =>
  console.log(`| ${name} | ${fastest(timings[i]).toFixed(0)} | ${(fastest(timings[i]) / fastest(timings[0])).toFixed(2)}x | ${median(timings[i]).toFixed(0)} | ${(median(timings[i]) / median(timings[0])).toFixed(2)}x |`),
);
rmSync(dataDir, { recursive: true, force: true });
