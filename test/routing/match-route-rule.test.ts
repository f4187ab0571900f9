import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../core/config/load-config.ts';
import { matchRouteRule, type RuleFacts } from '../../core/routing/match-route-rule.ts';

const rulesOf = (rules: unknown[]) => parseConfig({ routing: { rules } }, 'config.json').rules;

const facts = (over: Partial<RuleFacts> = {}): RuleFacts => ({
  requestClass: null, agentType: null, auxiliaryType: null, compaction: null, contextCompacted: null, thinking: false, tools: [], model: 'claude-sonnet-4-5', promptTokens: 1000, windowTokens: 200_000, ...over,
});

describe('routing rules: first match wins, every condition given must hold', () => {
  const rules = rulesOf([
    { name: 'compaction', when: { requestClass: 'compaction' }, model: 'gemini-2.5-flash' },
    { name: 'background', when: { requestClass: ['auxiliary', 'side_reply'], model: 'claude-haiku-*' }, model: 'llama-3.1-8b' },
    { name: 'explore', when: { requestClass: 'subagent', agentType: 'Explore' }, model: 'gpt-4o-mini' },
    { name: 'think', when: { thinking: true, promptTokensAtLeast: 50_000 }, model: 'claude-opus-4-5' },
    { name: 'long', when: { windowShareAtLeast: 0.6 }, model: 'gemini-2.5-pro' },
    { name: 'search', when: { tools: 'web_search' }, model: 'gpt-4o' },
  ]);
  it.each([
    ['compaction', facts({ requestClass: 'compaction' }), 'compaction', 'request class compaction'],
    ['a background call on the Haiku tier', facts({ requestClass: 'auxiliary', model: 'Claude-Haiku-4-5-20251001' }), 'background', 'request class auxiliary, model Claude-Haiku-4-5-20251001'],
    ['a background call on another tier', facts({ requestClass: 'auxiliary' }), null, null],
    ['an Explore subagent (any case)', facts({ requestClass: 'subagent', agentType: 'explore' }), 'explore', 'request class subagent, agent type explore'],
    ['another subagent', facts({ requestClass: 'subagent', agentType: 'general-purpose' }), null, null],
    ['thinking on a long prompt', facts({ thinking: true, promptTokens: 60_000 }), 'think', 'thinking on, prompt ~60000 tokens >= 50000'],
    ['thinking on a short prompt', facts({ thinking: true }), null, null],
    ['a prompt filling 70% of the window', facts({ promptTokens: 140_000 }), 'long', 'prompt ~140000 tokens, 0.70 of the 200000-token window'],
    ['a window nobody knows', facts({ promptTokens: 140_000, windowTokens: null }), null, null],
    ['a server web search tool', facts({ tools: ['Bash', 'web_search_20250305'] }), 'search', 'offers web_search'],
    ['a request that says nothing', facts(), null, null],
  ])('%s', (_what, given, rule, why) => {
    const match = matchRouteRule(rules, given);
    expect(match?.rule.name ?? null).toBe(rule);
    expect(match?.why ?? null).toBe(why);
  });

  it('the order decides between two rules that both hold', () => {
    const both = facts({ requestClass: 'compaction', tools: ['web_search'] });
    expect(matchRouteRule(rules, both)!.rule.name).toBe('compaction');
    expect(matchRouteRule([...rules].reverse(), both)!.rule.name).toBe('search');
  });
});

describe('routing.rules in the config file', () => {
  const problem = (rules: unknown) => {
    try {
      parseConfig({ routing: { rules } }, 'config.json');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('the config was accepted');
  };
  it('each mistake is named by its field', () => {
    expect(problem([{ when: { requestClass: 'compacting' }, model: 'x' }])).toContain('routing.rules.0.when.requestClass');
    expect(problem([{ when: {}, model: 'x' }])).toMatch(/routing\.rules\.0\.when: must name at least one condition/);
    expect(problem([{ when: { windowShareAtLeast: 1.5 }, model: 'x' }])).toContain('routing.rules.0.when.windowShareAtLeast: must be at most 1');
    expect(problem([{ when: { thinking: true } }])).toContain('routing.rules.0.model');
    expect(problem([{ when: { thinking: true }, model: 'x', use: 'y' }])).toContain('routing.rules.0');
    expect(problem([{ name: 'a', when: { thinking: true }, model: 'x' }, { name: 'a', when: { thinking: false }, model: 'y' }])).toContain('routing.rules.1.name: "a" names an earlier rule too');
  });
});
