import type { RouteRule } from '../config/route-rule-schema.ts';
import { roughTokens } from './estimate-tokens.ts';
import { describeRuleMatch, matchRouteRule, type RequestPurpose, type RuleMatch } from './match-route-rule.ts';
import type { RoutePlan, RouteRequest } from './route-plan.ts';
import { sessionKeyPrefix } from './stick-route.ts';
import type { StickyMemory } from './sticky-memory.ts';

export interface PurposeRoute {
  /** The request as it is planned: with the rule's model when a rule matched. */
  request: RouteRequest;
  match: RuleMatch | null;
  /** What the route reason says first: the rule and what held. */
  note: string | null;
}

/**
 * routing.rules applied to a request that says what it is for: the first rule whose conditions hold
 * sends it to the rule's model instead of the one it asked for. `windowOf` gives the context window
 * of the model asked for (null when unknown); it is asked only when a rule weighs the prompt against it.
 */
export function routeByPurpose(request: RouteRequest, rules: readonly RouteRule[], windowOf: (request: RouteRequest) => number | null): PurposeRoute {
  const purpose = request.purpose;
  if (!purpose || rules.length === 0 || request.operation !== 'chat') return { request, match: null, note: null };
  const promptTokens = roughTokens(request.prompt);
  const windowTokens = rules.some((r) => r.when.windowShareAtLeast !== undefined) ? windowOf(request) : null;
  const match = matchRouteRule(rules, { ...purpose, model: request.model, promptTokens, windowTokens });
  if (!match) return { request, match: null, note: null };
  return { request: { ...request, model: match.rule.model }, match, note: describeRuleMatch(match, request.model) };
}

/** The request compacts its conversation (Claude Code's request class, or its compaction header). */
export function isCompaction(purpose: RequestPurpose | null | undefined): boolean {
  return purpose != null && (purpose.requestClass === 'compaction' || purpose.compaction !== null);
}

/**
 * The plan with what its purpose changed said in its reason. A compaction ends the conversation's
 * prefix (the summary replaces it, and a provider's prompt cache of it is of no more use): the
 * session's sticky memory is forgotten, so its next request is planned afresh, and the compaction's
 * own answer is not remembered. The compaction itself still went where the session was, whose
 * cache holds the conversation it summarises.
 */
export function notePurpose(plan: RoutePlan, route: PurposeRoute, sticky: StickyMemory): RoutePlan {
  let next = plan;
  if (route.note) next = { ...next, reason: `${route.note}; ${next.reason}` };
  const session = route.request.session;
  if (session && isCompaction(route.request.purpose)) {
    const forgotten = sticky.forgetPrefix(sessionKeyPrefix(session, route.request.keyId));
    next = { ...next, sticky: null, reason: `${next.reason}; compaction: the session's sticky endpoint${forgotten === 1 ? '' : 's'} forgotten (${forgotten})` };
  }
  return next;
}
