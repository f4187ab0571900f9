import type { RouteRule } from '../config/route-rule-schema.ts';

/**
 * What a request is for, as far as its client says (Claude Code's gateway hint headers) and its
 * body shows. Null where nothing says.
 */
export interface RequestPurpose {
  /** x-claude-code-request-class: main, subagent, workflow, compaction, auxiliary, side_reply. */
  requestClass: string | null;
  /** x-claude-code-agent-type: a subagent's type (general-purpose, Explore, Plan, custom ...). */
  agentType: string | null;
  /** x-claude-code-auxiliary-type: which background call (memory_save ...). */
  auxiliaryType: string | null;
  /** x-claude-code-compaction: this request compacts the conversation (its kind: auto, manual ...). */
  compaction: string | null;
  /** x-claude-code-context-compacted: the conversation was compacted before this request. */
  contextCompacted: string | null;
  /** The request asks for extended thinking or a reasoning effort. */
  thinking: boolean;
  /** Names and types of the tools it offers (`Bash`, `web_search_20250305`). */
  tools: string[];
}

/** The facts a rule is matched against: the purpose, the model asked for and the prompt's size against that model's window. */
export interface RuleFacts extends RequestPurpose {
  model: string;
  promptTokens: number;
  /** The smallest context window among the model's endpoints, null when unknown. */
  windowTokens: number | null;
}

export interface RuleMatch {
  rule: RouteRule;
  /** The conditions that held, as the route reason says them: `request class compaction, thinking off`. */
  why: string;
}

/** The first rule whose every condition holds, or null: rules are tried in their order, first match wins. */
export function matchRouteRule(rules: readonly RouteRule[], facts: RuleFacts): RuleMatch | null {
  for (const rule of rules) {
    const why = conditionsHold(rule, facts);
    if (why !== null) return { rule, why };
  }
  return null;
}

/** What the route reason says of a rule that decided a route. */
export function describeRuleMatch(match: RuleMatch, asked: string): string {
  const named = match.rule.name === null ? `routing.rules[${match.rule.index}]` : `"${match.rule.name}" (routing.rules[${match.rule.index}])`;
  return `rule ${named} matched (${match.why}): ${asked} -> ${match.rule.model}`;
}

function conditionsHold(rule: RouteRule, facts: RuleFacts): string | null {
  const { when } = rule;
  const said: string[] = [];
  if (when.requestClass) {
    if (facts.requestClass === null || !when.requestClass.includes(facts.requestClass as never)) return null;
    said.push(`request class ${facts.requestClass}`);
  }
  if (when.agentType) {
    if (facts.agentType === null || !when.agentType.some((t) => t.toLowerCase() === facts.agentType!.toLowerCase())) return null;
    said.push(`agent type ${facts.agentType}`);
  }
  if (when.auxiliaryType) {
    if (facts.auxiliaryType === null || !when.auxiliaryType.includes(facts.auxiliaryType)) return null;
    said.push(`auxiliary type ${facts.auxiliaryType}`);
  }
  if (when.model) {
    if (!when.model.some((pattern) => globMatches(pattern, facts.model))) return null;
    said.push(`model ${facts.model}`);
  }
  if (when.thinking !== undefined) {
    if (when.thinking !== facts.thinking) return null;
    said.push(`thinking ${facts.thinking ? 'on' : 'off'}`);
  }
  if (when.promptTokensAtLeast !== undefined) {
    if (facts.promptTokens < when.promptTokensAtLeast) return null;
    said.push(`prompt ~${facts.promptTokens} tokens >= ${when.promptTokensAtLeast}`);
  }
  if (when.windowShareAtLeast !== undefined) {
    // A window nobody knows cannot be filled to a share of it.
    if (!facts.windowTokens || facts.promptTokens / facts.windowTokens < when.windowShareAtLeast) return null;
    // A share, not a percentage: a '%' in a header value travels percent-encoded.
    said.push(`prompt ~${facts.promptTokens} tokens, ${(facts.promptTokens / facts.windowTokens).toFixed(2)} of the ${facts.windowTokens}-token window`);
  }
  if (when.tools) {
    const offered = when.tools.find((wanted) => facts.tools.some((tool) => tool.toLowerCase().startsWith(wanted.toLowerCase())));
    if (offered === undefined) return null;
    said.push(`offers ${offered}`);
  }
  return said.join(', ');
}

const globs = new Map<string, RegExp>();

/** `*` stands for any run of characters; case does not matter (claude-haiku-* matches Claude-Haiku-4-5). */
export function globMatches(pattern: string, value: string): boolean {
  let regex = globs.get(pattern);
  if (!regex) {
    regex = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'i');
    if (globs.size > 1000) globs.clear();
    globs.set(pattern, regex);
  }
  return regex.test(value);
}
