import { z } from 'zod';

/**
 * What a coding agent says a request is for, in Claude Code's gateway hint header
 * `x-claude-code-request-class` (sent with CLAUDE_CODE_GATEWAY_HINT_HEADERS=1; the values of
 * Claude Code 2.1.332): the user's own turns, a subagent's, a workflow's, the summary that compacts
 * the conversation, the agent's background calls (titles, summaries, memory), and a side reply.
 */
export const REQUEST_CLASSES = ['main', 'subagent', 'workflow', 'compaction', 'auxiliary', 'side_reply'] as const;
export type RequestClass = (typeof REQUEST_CLASSES)[number];

/** Rules at most: each is tried in order on every request that names what it is for. */
export const MAX_ROUTE_RULES = 50;

const label = z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters');
const oneOrMore = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).min(1, 'must list at least one value').max(50, 'must list at most 50 values')]);

/**
 * The conditions of a rule; all the ones given must hold. A list means any of its values.
 * `model` matches the model the client asked for (Claude Code's tier model: its Haiku-tier
 * background calls, say), `*` standing for any run of characters.
 */
export const routeRuleConditionsSchema = z
  .strictObject({
    requestClass: oneOrMore(z.enum(REQUEST_CLASSES)).optional(),
    agentType: oneOrMore(label).optional(),
    auxiliaryType: oneOrMore(label).optional(),
    model: oneOrMore(label).optional(),
    thinking: z.boolean().optional(),
    /** The prompt is at least this many tokens (Patchbay's estimate, as routing counts it). */
    promptTokensAtLeast: z.number().int('must be a whole number of tokens').positive('must be above 0').optional(),
    /** The prompt fills at least this share (0 to 1) of the context window of the model asked for. */
    windowShareAtLeast: z.number().gt(0, 'must be above 0').max(1, 'must be at most 1 (the whole window)').optional(),
    /** The request offers a tool of this name or type (its start: `web_search` matches web_search_20250305). */
    tools: oneOrMore(label).optional(),
  })
  .refine((when) => Object.values(when).some((v) => v !== undefined), 'must name at least one condition (a rule for every request would be a default model, not a rule)');

/** routing.rules[i]: when a request matches, it goes to `model` (a model or an alias) instead of the one it asked for. */
export const routeRuleSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/, 'must be 1 to 64 letters, digits, spaces, ".", "_" or "-", starting with a letter or digit')
    .optional(),
  when: routeRuleConditionsSchema,
  model: z
    .string()
    .min(1, 'must name a model')
    .max(256, 'must be at most 256 characters')
    .regex(/^[^\u0000-\u001f\u007f]+$/, 'must not contain control characters'),
});
export type RouteRuleConfig = z.infer<typeof routeRuleSchema>;

export const routeRulesSchema = z
  .array(routeRuleSchema)
  .max(MAX_ROUTE_RULES, `must list at most ${MAX_ROUTE_RULES} rules`)
  .superRefine((rules, ctx) => {
    const seen = new Set<string>();
    rules.forEach((rule, index) => {
      if (rule.name === undefined) return;
      if (seen.has(rule.name)) ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `"${rule.name}" names an earlier rule too; rule names must be unique` });
      seen.add(rule.name);
    });
  });

/** A rule as routing reads it: every condition a list (or absent), and its place in routing.rules. */
export interface RouteRule {
  /** Its name as written, null when it has none. */
  name: string | null;
  /** Its name, or `rules[i]` for a rule without one. */
  label: string;
  /** Its index in routing.rules, which the route reason names. */
  index: number;
  when: {
    requestClass?: RequestClass[];
    agentType?: string[];
    auxiliaryType?: string[];
    model?: string[];
    thinking?: boolean;
    promptTokensAtLeast?: number;
    windowShareAtLeast?: number;
    tools?: string[];
  };
  model: string;
}

const LIST_CONDITIONS = new Set(['requestClass', 'agentType', 'auxiliaryType', 'model', 'tools']);

export function resolveRouteRules(rules: RouteRuleConfig[]): RouteRule[] {
  return rules.map((rule, index) => {
    // In the order written: the conditions read back (GET /api/routing, `routing show`) as they were given.
    const when = Object.fromEntries(Object.entries(rule.when).map(([key, value]) => [key, LIST_CONDITIONS.has(key) && !Array.isArray(value) ? [value] : value])) as RouteRule['when'];
    return { name: rule.name ?? null, label: rule.name ?? `rules[${index}]`, index, when, model: rule.model };
  });
}
