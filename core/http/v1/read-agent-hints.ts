import type { IncomingHttpHeaders } from 'node:http';
import type { RequestPurpose } from '../../routing/match-route-rule.ts';

/** What an agent's own headers say a request is for: the part of RequestPurpose the body cannot tell. */
export type AgentHints = Omit<RequestPurpose, 'thinking' | 'tools'>;

export const NO_HINTS: AgentHints = { requestClass: null, agentType: null, auxiliaryType: null, compaction: null, contextCompacted: null };

/** A hint is a short word; anything longer is cut (it is recorded on the usage row and matched, never shown as sent). */
const MAX_HINT_LENGTH = 64;

function hint(headers: IncomingHttpHeaders, name: string): string | null {
  const raw = headers[name];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  return value ? value.slice(0, MAX_HINT_LENGTH) : null;
}

/**
 * Claude Code's gateway hint headers (CLAUDE_CODE_GATEWAY_HINT_HEADERS=1, which `patchbay claude`
 * sets; read from Claude Code 2.1.332): x-claude-code-request-class, -agent-type, -auxiliary-type,
 * -compaction and -context-compacted. Null when the request carries none of them, which is every
 * other client's case and costs one header lookup.
 */
export function readAgentHints(headers: IncomingHttpHeaders): AgentHints | null {
  const requestClass = hint(headers, 'x-claude-code-request-class');
  const compaction = hint(headers, 'x-claude-code-compaction');
  if (requestClass === null && compaction === null && headers['x-claude-code-agent-type'] === undefined && headers['x-claude-code-auxiliary-type'] === undefined) return null;
  return {
    // A compaction Claude Code marks only with its compaction header is a compaction all the same.
    requestClass: requestClass ?? (compaction !== null ? 'compaction' : null),
    agentType: hint(headers, 'x-claude-code-agent-type'),
    auxiliaryType: hint(headers, 'x-claude-code-auxiliary-type'),
    compaction,
    contextCompacted: hint(headers, 'x-claude-code-context-compacted'),
  };
}
