import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, vi } from 'vitest';
import type { RecordedRequest } from '../emulators/emulator-server.ts';
import { startRig, type ProviderName, type Rig } from '../helpers/conformance-matrix.ts';
import { usageRows } from '../helpers/start-patchbay.ts';
import { jsonLines, repoRoot } from './run-agent.ts';
import { agentScript } from './scripted-model.ts';

export { PROVIDERS, type ProviderCase, type ProviderName } from '../helpers/conformance-matrix.ts';

/** The five emulators, scripted for agents (scripted-model.ts), and one Patchbay in front of them. */
export async function startAgentRig(): Promise<Rig> {
  const rig = await startRig();
  for (const emulator of Object.values(rig.emulators)) emulator.script = agentScript;
  const record = process.env.PATCHBAY_AGENT_RECORD;
  if (!record) return rig;
  // PATCHBAY_AGENT_RECORD=FILE.jsonl: a line per model call the emulators received (for a report).
  const stop = rig.stop;
  return {
    ...rig,
    async stop() {
      for (const [provider, emulator] of Object.entries(rig.emulators)) {
        for (const request of emulator.requests) {
          const body = (request.body ?? {}) as Record<string, any>;
          const line = { file: expect.getState().testPath?.split('/').pop(), provider, method: request.method, path: request.path, tools: toolNames(body), maxTokens: body.max_tokens ?? body.max_completion_tokens ?? body.max_output_tokens ?? body.generationConfig?.maxOutputTokens, keys: Object.keys(body), headers: Object.keys(request.headers).filter((h) => /^(x-|anthropic|originator)/.test(h)) };
          appendFileSync(record, `${JSON.stringify(line)}\n`);
        }
      }
      await stop();
    },
  };
}

/** Marks where a run starts, so a test looks only at what that run caused. */
export interface Mark {
  requests: Record<ProviderName, number>;
  rows: number;
}

/** Model calls (POSTs) every emulator received so far. */
function allCalls(rig: Rig): number {
  return Object.values(rig.emulators).reduce((sum, e) => sum + e.requests.filter((r) => r.method === 'POST').length, 0);
}

/**
 * Waits until Patchbay has written a usage row for every call the emulators received (a row is
 * written as its answer ends, which can be after the agent that asked has exited), so rows of one
 * run never count in the next.
 */
async function settle(rig: Rig, at: Mark | null): Promise<Record<string, unknown>[]> {
  return vi.waitFor(
    () => {
      const rows = usageRows(rig.pb.patchbay);
      expect(rows.length - (at?.rows ?? 0)).toBeGreaterThanOrEqual(allCalls(rig) - (at ? Object.values(at.requests).reduce((a, b) => a + b, 0) : 0));
      return rows;
    },
    { timeout: 10_000, interval: 50 },
  );
}

export async function mark(rig: Rig): Promise<Mark> {
  const rows = await settle(rig, null);
  const requests = Object.fromEntries(Object.entries(rig.emulators).map(([name, e]) => [name, e.requests.filter((r) => r.method === 'POST').length])) as Record<ProviderName, number>;
  return { requests, rows: rows.length };
}

/** The model calls a provider's emulator received since the mark (POSTs; model listings and probes left out). */
export function callsSince(rig: Rig, at: Mark, provider: ProviderName): RecordedRequest[] {
  return rig.emulators[provider].requests.filter((r) => r.method === 'POST').slice(at.requests[provider]);
}

/** Every provider the run reached, with its number of model calls. */
export function providersReached(rig: Rig, at: Mark): Partial<Record<ProviderName, number>> {
  const out: Partial<Record<ProviderName, number>> = {};
  for (const name of Object.keys(rig.emulators) as ProviderName[]) {
    const count = callsSince(rig, at, name).length;
    if (count > 0) out[name] = count;
  }
  return out;
}

/** The usage rows written since the mark, once there is one for every call since it. */
export async function rowsSince(rig: Rig, at: Mark): Promise<Record<string, unknown>[]> {
  return (await settle(rig, at)).slice(at.rows);
}

type Json = Record<string, any>;

/**
 * The names of the tools a request offers, in any provider's wire: OpenAI chat (`function.name`),
 * Anthropic (`name`), Gemini (`functionDeclarations[].name`), Responses (`name`, a namespace's
 * functions as `namespace.name`, built-in tools by `type`).
 */
export function toolNames(body: unknown): string[] {
  const tools = (body as Json | undefined)?.tools;
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool: Json) => {
    if (Array.isArray(tool.functionDeclarations)) return tool.functionDeclarations.map((d: Json) => String(d.name));
    if (tool.function?.name) return [String(tool.function.name)];
    if (tool.type === 'namespace') return (tool.tools ?? []).map((inner: Json) => `${tool.name}.${inner.name}`);
    if (typeof tool.name === 'string') return [tool.name];
    return [String(tool.type ?? Object.keys(tool)[0])];
  });
}

/** The main-loop calls of a run (the ones offering the agent's shell tool), as opposed to its background calls. */
export function mainCalls(calls: RecordedRequest[], shellTool: string): RecordedRequest[] {
  return calls.filter((call) => toolNames(call.body).includes(shellTool));
}

/** Asserts that the text appears in the order given inside the request body (the history replayed). */
export function expectInOrder(body: unknown, texts: string[]): void {
  const json = JSON.stringify(body);
  let from = 0;
  for (const text of texts) {
    const at = json.indexOf(text, from);
    expect(at, `"${text}" in the replayed history after position ${from}`).toBeGreaterThanOrEqual(0);
    from = at + text.length;
  }
}

/**
 * The fenced block of the user's manual (README.md, then docs/*.md, where the README's deep sections
 * live) that follows the first line matching `after` (a recipe, re-checked as written).
 */
export function readmeBlock(after: RegExp, language: string): string {
  const docs = join(repoRoot, 'docs');
  const readme = [join(repoRoot, 'README.md'), ...readdirSync(docs).filter((f) => f.endsWith('.md')).sort().map((f) => join(docs, f))]
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
  const start = readme.search(after);
  if (start === -1) throw new Error(`README and docs/ have no line matching ${after}`);
  const fence = readme.indexOf('```' + language + '\n', start);
  const end = readme.indexOf('\n```', fence + 4);
  return readme.slice(fence + language.length + 4, end);
}

/** The `export NAME=VALUE` lines of a README shell block, comments removed. */
export function exportsOf(block: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of block.split('\n')) {
    const match = /^export ([A-Z_]+)=(\S+)/.exec(line.trim());
    if (match) out[match[1]] = match[2];
  }
  return out;
}

/**
 * The README's config.toml for Codex with this Patchbay's address, and the model under test; with
 * `model` null, the README's set-up without a model line (Codex then asks for its own default).
 */
export function readmeCodexConfig(baseUrl: string, model: string | null): string {
  const recipe = readmeBlock(/^### Codex CLI by hand/m, 'toml');
  expect(recipe).toContain('base_url = "http://127.0.0.1:8790/v1"');
  const config = recipe.replaceAll('http://127.0.0.1:8790/v1', `${baseUrl}/v1`);
  return model === null ? config.replace(/^model = "[^"]*".*\n/m, '') : config.replace(/^model = "[^"]*"/m, `model = "${model}"`);
}

/** Codex's --json events: the thread id, the agent's messages, a failure if any. */
export function codexEvents(stdout: string) {
  const events = jsonLines(stdout);
  return {
    events,
    thread: events.find((e) => e.type === 'thread.started')?.thread_id as string | undefined,
    messages: events.filter((e) => e.type === 'item.completed' && e.item.type === 'agent_message').map((e) => e.item.text as string),
    failed: events.find((e) => e.type === 'turn.failed' || e.type === 'error'),
  };
}
