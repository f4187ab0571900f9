import type { SessionAgent } from '../../api/types.ts';

/** An agent with its depth in the tree, for a table that shows subagents indented under their parent. */
export interface AgentLine {
  agent: SessionAgent;
  depth: number;
}

/** The agent trees in display order: each parent, then its subagents (depth first). */
export function flattenAgents(agents: SessionAgent[], depth = 0, into: AgentLine[] = []): AgentLine[] {
  for (const agent of agents) {
    into.push({ agent, depth });
    flattenAgents(agent.subagents, depth + 1, into);
  }
  return into;
}

/** The session's id as the page shows it: long ids cut in the middle, so both ends stay recognisable. */
export function shortId(id: string, max = 20): string {
  return id.length <= max ? id : `${id.slice(0, max - 9)}…${id.slice(-8)}`;
}

/** Client names as a person reads them. */
export const CLIENT_NAMES: Record<string, string> = {
  patchbay: 'header',
  'claude-code': 'Claude Code',
  codex: 'Codex',
  prompt_cache_key: 'prompt_cache_key',
  user: 'OpenAI user',
};
