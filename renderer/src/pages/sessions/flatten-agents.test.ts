import { describe, expect, it } from 'vitest';
import type { SessionAgent } from '../../api/types.ts';
import { flattenAgents, shortId } from './flatten-agents.ts';

const agent = (agent_id: string, subagents: SessionAgent[] = []): SessionAgent => ({
  agent_id, parent_agent_id: null, subagents, first_ts: '', last_ts: '', requests: 1, errors: 0, prompt_tokens: 0, completion_tokens: 0,
  cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0, cache_saved_usd: 0,
});

describe('flattenAgents', () => {
  it('lists each parent before its subagents, with their depth', () => {
    const lines = flattenAgents([agent('main', [agent('sub-1', [agent('sub-1a')]), agent('sub-2')]), agent('other')]);
    expect(lines.map((l) => [l.agent.agent_id, l.depth])).toEqual([['main', 0], ['sub-1', 1], ['sub-1a', 2], ['sub-2', 1], ['other', 0]]);
  });

  it('cuts long ids in the middle', () => {
    expect(shortId('short')).toBe('short');
    expect(shortId('0123456789abcdef-0123456789abcdef')).toBe('0123456789a…89abcdef');
  });
});
