import { createHash, randomBytes } from 'node:crypto';

/**
 * Behaviour shared by every emulator, so the same conversation gets the same answer from each
 * provider (the deterministic reply text, tool arguments and token rules live in openai-emulator.ts;
 * these are the pieces the non-OpenAI wires need on top).
 */

/** The OpenAI-ish message every emulator converts its provider's conversation into before answering. */
export type NeutralMessage = { role: string; content?: unknown };

/** A tool's input schema, as far as the emulated model reads it. */
export interface ArgumentSchema {
  properties?: Record<string, unknown>;
  required?: string[];
}

/**
 * The arguments the emulated model passes to a tool: each required property (every property when the
 * schema lists none as required) set to "<name>-value". Same rule as the OpenAI emulator.
 */
export function argumentsFor(schema: ArgumentSchema | undefined): Record<string, string> {
  const props = Object.keys(schema?.properties ?? {});
  const required = Array.isArray(schema?.required) ? schema.required : props;
  return Object.fromEntries(required.map((name) => [name, `${name}-value`]));
}

/** Completion tokens of a tool call: words of its JSON arguments plus 5 (the OpenAI emulator's rule). */
export function toolCallTokens(args: unknown): number {
  return JSON.stringify(args).split(/\s+/).filter(Boolean).length + 5;
}

/**
 * Cuts a text at the earliest occurrence of any stop sequence (the matched sequence itself is not
 * part of the output, as every provider does). Returns which sequence matched.
 */
export function cutAtStop(text: string, stops: readonly string[]): { text: string; matched: string | null } {
  let at = -1;
  let matched: string | null = null;
  for (const stop of stops) {
    if (!stop) continue;
    const index = text.indexOf(stop);
    if (index !== -1 && (at === -1 || index < at)) {
      at = index;
      matched = stop;
    }
  }
  return matched === null ? { text, matched } : { text: text.slice(0, at), matched };
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random [A-Za-z0-9] string, for provider-style ids. */
export function randomAlnum(length: number, alphabet = ALPHANUMERIC): string {
  return Array.from(randomBytes(length), (b) => alphabet[b % alphabet.length]).join('');
}

/** The text a tool result stands for: strings as they are, text blocks joined, anything else as compact JSON. */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b) => (b && typeof b === 'object' && typeof (b as { text?: unknown }).text === 'string' ? (b as { text: string }).text : ''))
      .join(' ');
  }
  return content === undefined ? '' : JSON.stringify(content);
}

/** Seconds from now as RFC 3339 without fractions (`2025-08-21T12:40:59Z`). */
export function rfc3339In(seconds: number): string {
  return new Date(Date.now() + seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What a scripted model sees of a request: the text of the last user turn, the results of the tools
 * it called since its last answer (null when there are none), and the names of the tools offered.
 * Each emulator builds it from its own wire, so one script serves every provider.
 */
export interface ScriptView {
  lastUserText: string;
  toolResults: string[] | null;
  tools: string[];
  /** Every neutral message, oldest first (the history a client replayed). */
  messages: NeutralMessage[];
}

/** A scripted answer: text, or one call of a named tool with these arguments. */
export type ScriptedTurn = { text: string } | { tool: string; input: Record<string, unknown> };

/**
 * Tells an emulator what its model answers (EmulatorServer.script), for tests that drive a real
 * agent: a turn, or undefined for the emulator's default rule.
 */
export type ModelScript = (view: ScriptView) => ScriptedTurn | undefined;

/** The ScriptView of a conversation already in the neutral (OpenAI-ish) shape. */
export function scriptView(messages: NeutralMessage[], tools: string[]): ScriptView {
  const lastAssistant = messages.map((m) => m.role).lastIndexOf('assistant');
  const results = messages.slice(lastAssistant + 1).filter((m) => m.role === 'tool').map((m) => resultText(m.content));
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  return { lastUserText: resultText(lastUser?.content), toolResults: results.length > 0 ? results : null, tools, messages };
}

/**
 * Which offered tool the emulated model calls when it may choose: the first one the user's last
 * words name (a word equal to the tool's name, or to the part after `__` of a flattened namespaced
 * function, e.g. "spawn_agent" for `multi_agent_v1__spawn_agent`), else the first tool. Real models
 * call the tool they are asked for; agents offer a dozen tools in a fixed order.
 */
export function chosenToolIndex(names: readonly string[], userText: string): number {
  const words = new Set(userText.split(/[^A-Za-z0-9_.:-]+/).filter(Boolean));
  const named = names.findIndex((name) => words.has(name) || [...words].some((word) => name.endsWith(`__${word}`)));
  return named === -1 ? 0 : named;
}

/**
 * A provider's automatic prompt cache, as OpenAI documents its own (and Groq and Together bill
 * theirs): a request whose leading messages (with its tools) repeat those of an earlier request to
 * the same provider and model reads that prefix from the cache, from `minTokens` on, in
 * `increment`-token steps. Each emulator holds its own, so a prefix is cached only on the provider
 * that saw it. Simplified: no expiry, no eviction but a bound, and the prefix is counted by the
 * emulator's own token rule.
 */
export class PrefixCache {
  private readonly seen = new Set<string>();
  private readonly minTokens: number;
  private readonly increment: number;

  constructor(options: { minTokens?: number; increment?: number } = {}) {
    this.minTokens = options.minTokens ?? 1024;
    this.increment = options.increment ?? 128;
  }

  /**
   * Tokens of this request read from the cache, and the request's own prefixes written to it.
   * `tokensOf(k)` counts the first k messages.
   */
  readAndWrite(model: string, tools: unknown, messages: unknown[], tokensOf: (count: number) => number): number {
    const keys = messages.map((_, i) => createHash('sha256').update(JSON.stringify([model, tools ?? null, messages.slice(0, i + 1)])).digest('hex'));
    let cached = 0;
    // The longest earlier prefix, never the whole request (its last message is new).
    for (let k = messages.length - 1; k >= 1; k--) {
      if (this.seen.has(keys[k - 1])) {
        const tokens = tokensOf(k);
        cached = tokens < this.minTokens ? 0 : Math.floor(tokens / this.increment) * this.increment;
        break;
      }
    }
    if (this.seen.size > 50_000) this.seen.clear();
    for (const key of keys) this.seen.add(key);
    return cached;
  }
}
