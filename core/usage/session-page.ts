// The Sessions page from the usage_sessions rollup's rows, which both backends' queries return in the same shape.
import type { SessionCursor, UsageRange } from './usage-backend.ts';
import type { SessionAgent, SessionClassSums, SessionPage, SessionRow } from './usage-views.ts';

const DAY_MS = 86_400_000;

/** A session's line as both backends' list query returns it (models and providers comma-joined). */
export type SessionListRow = Omit<SessionRow, 'first_ts' | 'last_ts' | 'models' | 'providers' | 'agents' | 'key_id'> & { key_id: string; first: number; last: number; models: string | null; providers: string | null };
/** An agent's sums within a session, from the usage_sessions rollup. */
export type SessionAgentRow = { session_id: string; key_id: string; agent_id: string; parent: string; first: number; last: number } & Omit<SessionAgent, 'agent_id' | 'parent_agent_id' | 'subagents' | 'first_ts' | 'last_ts'>;
/** A session's sums of one request class, from the usage_session_classes rollup ('' for requests that said none). */
export type SessionClassRow = { session_id: string; key_id: string } & SessionClassSums;

/** The Sessions list's cursor as next_cursor gives it (the last session's time, key and id), or null when it is not one. */
export function parseSessionCursor(text: string): SessionCursor | null {
  const match = /^(\d+)\.([^.]*)\.(.+)$/s.exec(Buffer.from(text, 'base64url').toString());
  return match ? { ts: Number(match[1]), key: match[2], session: match[3] } : null;
}

/** The sessions range in whole UTC days (the rollup's unit). */
export function sessionDays(range: UsageRange): { fromDay: number; toDay: number } {
  return { fromDay: Math.floor(range.from / DAY_MS), toDay: Math.ceil(range.to / DAY_MS) };
}

/**
 * A page of the Sessions list from the list query's rows (up to limit + 1: one more says there is
 * a next page) and the agents of the sessions shown, each agent nested under its parent.
 */
export function toSessionPage(rows: SessionListRow[], agentRows: SessionAgentRow[], limit: number, classRows: SessionClassRow[] = []): SessionPage {
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : rows;
  const agents = toAgentTrees(agentRows);
  const classes = new Map<string, SessionClassSums[]>();
  for (const { session_id, key_id, ...sums } of classRows) {
    const session = `${key_id}\u0000${session_id}`;
    const list = classes.get(session) ?? [];
    classes.set(session, list);
    list.push({ ...sums, request_class: sums.request_class || null, requests: Number(sums.requests), errors: Number(sums.errors), prompt_tokens: Number(sums.prompt_tokens), completion_tokens: Number(sums.completion_tokens), cost_usd: Number(sums.cost_usd) });
  }
  for (const list of classes.values()) list.sort((a, b) => b.cost_usd - a.cost_usd || b.requests - a.requests);
  const list = (text: string | null) => (text ? text.split(',').filter((v) => v !== '').sort() : []);
  const last = shown[shown.length - 1];
  return {
    data: shown.map(({ first, last: lastTs, models, providers, key_id, ...sums }) => ({
      ...sums,
      key_id: key_id || null,
      first_ts: new Date(first).toISOString(),
      last_ts: new Date(lastTs).toISOString(),
      models: list(models),
      providers: list(providers),
      agents: agents.get(`${key_id}\u0000${sums.session_id}`) ?? [],
      classes: classes.get(`${key_id}\u0000${sums.session_id}`) ?? [],
    })),
    next_cursor: more ? Buffer.from(`${last.last}.${last.key_id}.${last.session_id}`).toString('base64url') : null,
  };
}

/** The agents of each session (by key and session id) as a tree of parent and subagents (rows oldest first). */
function toAgentTrees(rows: SessionAgentRow[]): Map<string, SessionAgent[]> {
  const trees = new Map<string, SessionAgent[]>();
  const bySession = new Map<string, Map<string, SessionAgent>>();
  for (const { session_id, key_id, parent, first, last, ...row } of rows) {
    const session = `${key_id}\u0000${session_id}`;
    const agents = bySession.get(session) ?? new Map<string, SessionAgent>();
    bySession.set(session, agents);
    agents.set(row.agent_id, { ...row, parent_agent_id: parent || null, first_ts: new Date(first).toISOString(), last_ts: new Date(last).toISOString(), subagents: [] });
  }
  for (const [session, agents] of bySession) {
    const roots: SessionAgent[] = [];
    for (const agent of agents.values()) {
      const parent = agent.parent_agent_id ? agents.get(agent.parent_agent_id) : undefined;
      // A parent that sent nothing itself (the main agent often names no id) leaves its subagents at the top.
      if (parent && parent !== agent) parent.subagents.push(agent);
      else roots.push(agent);
    }
    trees.set(session, roots);
  }
  return trees;
}
