import type { RouteRuleConfig } from '../config/route-rule-schema.ts';
import type { Management } from './connect-management.ts';
import { UsageError } from './usage-error.ts';

/** The flags of `patchbay routing rule` (and the purpose flags `routing explain` shares). */
export const RULE_FLAGS = {
  class: { type: 'string' },
  'agent-type': { type: 'string' },
  'auxiliary-type': { type: 'string' },
  tier: { type: 'string' },
  thinking: { type: 'string' },
  'prompt-tokens-at-least': { type: 'string' },
  'window-share': { type: 'string' },
  tools: { type: 'string' },
  model: { type: 'string' },
  at: { type: 'string' },
} as const;

type Values = Record<string, string | boolean | undefined>;

const list = (value: string | boolean | undefined): string[] | undefined => (typeof value === 'string' ? value.split(',').map((v) => v.trim()).filter(Boolean) : undefined);

function onOff(value: string | boolean | undefined, flag: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'on' || value === 'true') return true;
  if (value === 'off' || value === 'false') return false;
  throw new UsageError(`--${flag} takes on or off, not "${String(value)}".`);
}

function number(value: string | boolean | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value !== 'string' || value.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${flag} must be a number, not "${String(value)}".`);
  return n;
}

/**
 * `routing rule NAME --class compaction --model MODEL` adds the rule NAME (or replaces it where it
 * stands; --at N puts it at position N, 1 first); `routing rule NAME none` removes it. The API takes
 * the whole list, which validates every field and names the one that is wrong.
 */
export async function editRule(management: Management, positionals: string[], values: Values): Promise<void> {
  const [name, remove] = positionals;
  if (!name) throw new UsageError('routing rule needs a name, e.g. "patchbay routing rule cheap-compaction --class compaction --model gemini-2.5-flash".');
  const rules = [...((await management.getRouting()).rules as RouteRuleConfig[])];
  const at = rules.findIndex((rule) => rule.name === name);
  if (remove === 'none') {
    if (at < 0) throw new UsageError(`There is no rule named "${name}".`);
    rules.splice(at, 1);
    await management.setRouting({ rules });
    return;
  }
  if (remove !== undefined) throw new UsageError(`routing rule takes a name and flags, or a name and "none"; "${remove}" is neither.`);
  if (typeof values.model !== 'string') throw new UsageError('routing rule needs --model: the model or alias its requests go to.');
  const when = Object.fromEntries(
    Object.entries({
      requestClass: list(values.class),
      agentType: list(values['agent-type']),
      auxiliaryType: list(values['auxiliary-type']),
      model: list(values.tier),
      thinking: onOff(values.thinking, 'thinking'),
      promptTokensAtLeast: number(values['prompt-tokens-at-least'], 'prompt-tokens-at-least'),
      windowShareAtLeast: number(values['window-share'], 'window-share'),
      tools: list(values.tools),
    }).filter(([, value]) => value !== undefined),
  );
  const rule = { name, when, model: values.model } as RouteRuleConfig;
  if (at >= 0) rules.splice(at, 1);
  const position = values.at === undefined ? (at >= 0 ? at : rules.length) : Math.min(Math.max(Math.trunc(number(values.at, 'at')!) - 1, 0), rules.length);
  rules.splice(position, 0, rule);
  await management.setRouting({ rules });
}

/** The purpose flags of `routing explain`: which rule a request that says so would meet. */
export function explainPurpose(values: Values): { request_class?: string; agent_type?: string; auxiliary_type?: string; thinking?: boolean; tools?: string[] } {
  const purpose = {
    request_class: typeof values.class === 'string' ? values.class : undefined,
    agent_type: typeof values['agent-type'] === 'string' ? values['agent-type'] : undefined,
    auxiliary_type: typeof values['auxiliary-type'] === 'string' ? values['auxiliary-type'] : undefined,
    thinking: onOff(values.thinking, 'thinking'),
    tools: list(values.tools),
  };
  return Object.fromEntries(Object.entries(purpose).filter(([, value]) => value !== undefined));
}

/** routing.rules as `routing show` lists them: in order, first match wins. */
export function describeRules(rules: RouteRuleConfig[]): string[] {
  if (rules.length === 0) return ['rules: none'];
  const lines = ['rules (first match wins):'];
  rules.forEach((rule, i) => {
    const when = Object.entries(rule.when)
      .map(([key, value]) => `${key}=${Array.isArray(value) ? value.join('|') : String(value)}`)
      .join(' ');
    lines.push(`  ${i + 1}. ${rule.name ?? `rules[${i}]`}: ${when} -> ${rule.model}`);
  });
  return lines;
}
