import type { IncomingHttpHeaders } from 'node:http';
import { escapeControls } from '../../errors/escape-controls.ts';

/** Where a request's session name came from (the usage row's session_source; the Sessions page's client). */
export type SessionSource = 'patchbay' | 'claude-code' | 'codex' | 'prompt_cache_key' | 'user';

/** Who sent a request, as the client named it: ids only, never content. */
export interface SessionIdentity {
  id: string | null;
  source: SessionSource | null;
  agentId: string | null;
  parentAgentId: string | null;
}

/**
 * Ids are recorded as sent, up to this many characters, but for control characters: those are
 * written out as escapes on arrival (escape-controls.ts), so no id a client chose can drive the
 * terminal of whoever lists the sessions (`patchbay usage --by session`) or reorder a page's text.
 */
export const MAX_SESSION_ID_LENGTH = 128;

/** Ranked: a lower rank wins. X-Patchbay-Session, which any client can send, wins over every id a client sends of its own accord. */
const RANK: Record<SessionSource, number> = { patchbay: 0, 'claude-code': 1, codex: 2, prompt_cache_key: 3, user: 4 };

function capped(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : escapeControls(trimmed).slice(0, MAX_SESSION_ID_LENGTH);
}

function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return capped(Array.isArray(value) ? value[0] : value);
}

/**
 * The session named by the request's headers: X-Patchbay-Session, Claude Code's
 * X-Claude-Code-Session-Id (with its agent and parent agent ids), Codex's x-codex-window-id or
 * session_id header. Read for every /v1 request before its body, so even a request refused for its
 * body carries its session on the usage row.
 */
export function readSessionHeaders(headers: IncomingHttpHeaders): SessionIdentity {
  const agentId = header(headers, 'x-claude-code-agent-id');
  const parentAgentId = header(headers, 'x-claude-code-parent-agent-id');
  const own = header(headers, 'x-patchbay-session');
  if (own) return { id: own, source: 'patchbay', agentId, parentAgentId };
  const claude = header(headers, 'x-claude-code-session-id');
  if (claude) return { id: claude, source: 'claude-code', agentId, parentAgentId };
  const codex = header(headers, 'x-codex-window-id') ?? (typeof headers.originator === 'string' && headers.originator.startsWith('codex') ? header(headers, 'session_id') : null);
  if (codex) return { id: codex, source: 'codex', agentId, parentAgentId };
  return { id: null, source: null, agentId, parentAgentId };
}

/**
 * Adds what the body names, where the headers named nothing better: Codex's
 * client_metadata.session_id on /v1/responses, then prompt_cache_key, then OpenAI's `user`.
 * Codex's session id in client_metadata wins over its window id header (a window is a part of a session).
 */
export function readSessionBody(session: SessionIdentity, raw: unknown): void {
  if (!raw || typeof raw !== 'object') return;
  const body = raw as Record<string, unknown>;
  const metadata = body.client_metadata;
  const codex = metadata && typeof metadata === 'object' ? capped((metadata as Record<string, unknown>).session_id) : null;
  const candidates: [SessionSource, string | null][] = [
    ['codex', codex],
    ['prompt_cache_key', capped(body.prompt_cache_key)],
    ['user', capped(body.user)],
  ];
  for (const [source, id] of candidates) {
    if (id === null) continue;
    if (session.source === null || RANK[source] < RANK[session.source] || (source === 'codex' && session.source === 'codex')) {
      session.id = id;
      session.source = source;
    }
    return;
  }
}
