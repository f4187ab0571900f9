import { createHash } from 'node:crypto';

/** A function offered inside a `namespace` tool: Codex routes its calls by both parts. */
export interface QualifiedToolName {
  namespace: string;
  name: string;
}

/** What the encoder needs to write a call back in the caller's terms. */
export interface ResponsesToolNames {
  /** Names (as sent upstream) of custom (freeform) tools: their calls are custom_tool_call items. */
  custom: ReadonlySet<string>;
  /** Names as sent upstream -> the namespace and function name the caller declared. */
  namespaced: ReadonlyMap<string, QualifiedToolName>;
}

export const NO_TOOL_NAMES: ResponsesToolNames = { custom: new Set(), namespaced: new Map() };

/**
 * A name every translated upstream accepts: Anthropic and OpenAI-compatible chat take
 * `^[a-zA-Z0-9_-]{1,64}$`, Gemini also wants a letter or underscore first.
 */
const PORTABLE_NAME = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

/**
 * The one flat name a namespaced function has upstream, the same on every request (so a replayed
 * call and the tool list agree without state). Codex's own flat spelling `namespace__name` where
 * it is a portable name (models that know Codex know it); otherwise that spelling with the other
 * characters made `_`, cut to fit, and ended by a hash of the two parts, so it stays unique.
 */
export function flatToolName({ namespace, name }: QualifiedToolName): string {
  const joined = `${namespace.replace(/_+$/, '')}__${name.replace(/^_+/, '')}`;
  if (PORTABLE_NAME.test(joined)) return joined;
  const hash = createHash('sha256').update(`${namespace}\u0000${name}`).digest('hex').slice(0, 8);
  const cleaned = joined.replace(/[^a-zA-Z0-9_-]/g, '_').replace(/^(?=[^a-zA-Z_])/, '_');
  return `${cleaned.slice(0, 64 - hash.length - 1)}_${hash}`;
}
