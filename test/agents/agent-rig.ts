import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { RecordedRequest } from '../emulators/emulator-server.ts';
import { startRig, type ProviderName, type Rig } from '../helpers/conformance-matrix.ts';
import { usageRows } from '../helpers/start-patchbay.ts';
import { repoRoot } from './run-agent.ts';
import { agentScript } from './scripted-model.ts';

export { PROVIDERS, type ProviderCase, type ProviderName } from '../helpers/conformance-matrix.ts';

/** The five emulators, scripted for agents (scripted-model.ts), and one Patchbay in front of them. */
export async function startAgentRig(): Promise<Rig> {
  const rig = await startRig();
  for (const emulator of Object.values(rig.emulators)) emulator.script = agentScript;
  return rig;
}

/** Marks where a run starts, so a test looks only at what that run caused. */
export interface Mark {
  requests: Record<ProviderName, number>;
  rows: number;
}

export function mark(rig: Rig): Mark {
  const requests = Object.fromEntries(Object.entries(rig.emulators).map(([name, e]) => [name, e.requests.length])) as Record<ProviderName, number>;
  return { requests, rows: usageRows(rig.pb.patchbay).length };
}

/** The model calls a provider's emulator received since the mark (POSTs; model listings and probes left out). */
export function callsSince(rig: Rig, at: Mark, provider: ProviderName): RecordedRequest[] {
  return rig.emulators[provider].requests.slice(at.requests[provider]).filter((r) => r.method === 'POST');
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

/** The usage rows written since the mark. */
export function rowsSince(rig: Rig, at: Mark): Record<string, unknown>[] {
  return usageRows(rig.pb.patchbay).slice(at.rows);
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

/** The README's fenced block that follows the first line matching `after` (a recipe, re-checked as written). */
export function readmeBlock(after: RegExp, language: string): string {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const start = readme.search(after);
  if (start === -1) throw new Error(`README has no line matching ${after}`);
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
