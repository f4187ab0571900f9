// Strategy, weights, fallbacks, aliases and pausing: GET/PUT /api/routing, `patchbay routing`.
import { section } from '../config/write-config.ts';
import type { ExplainRequest, RouteExplanation } from '../routing/router.ts';
import { applyConfigChange } from './apply-config-change.ts';
import { listManagedModels, type ManagedModel } from './list-managed-models.ts';
import { requireKey } from './manage-keys.ts';
import { liveConfig, type ManagementContext } from './management-context.ts';
import type { ExplainRouteInput, RoutingSettingsInput } from './management-schemas.ts';
import { routingView, type RoutingView } from './routing-view.ts';

export function getRouting(ctx: Pick<ManagementContext, 'config'>): RoutingView {
  return routingView(ctx.config);
}

/**
 * Strategy, weights, fallback chains and custom aliases (saved; each map given replaces the whole
 * map), and pausing (in memory on one machine; saved and shared by a team's replicas on PostgreSQL).
 */
export async function setRouting(ctx: Pick<ManagementContext, 'config' | 'catalog' | 'configStore' | 'onRoutingChange'>, input: RoutingSettingsInput): Promise<RoutingView> {
  if (input.strategy || input.weights || input.fallbacks || input.aliases || input.rules) {
    await applyConfigChange(liveConfig(ctx), (raw) => {
      const routing = section(raw, 'routing');
      if (input.strategy) routing.strategy = input.strategy;
      if (input.weights) routing.weights = input.weights;
      if (input.fallbacks) routing.fallbacks = input.fallbacks;
      if (input.aliases) routing.aliases = input.aliases;
      if (input.rules) {
        if (input.rules.length > 0) routing.rules = input.rules;
        else delete routing.rules;
      }
    });
  }
  if (input.paused !== undefined) {
    await ctx.configStore.setPaused(input.paused);
    ctx.config.paused = input.paused;
  }
  const routing = getRouting(ctx);
  ctx.onRoutingChange?.(routing);
  return routing;
}

/** What routing would do with a request now, and why (the dashboard's "Which provider now?", `patchbay routing explain`). */
export async function explainRoute(ctx: Pick<ManagementContext, 'keys' | 'router'>, input: ExplainRouteInput): Promise<RouteExplanation> {
  const allowedModels = input.key_id ? (await requireKey(ctx, input.key_id)).allowedModels : null;
  return ctx.router.explain({
    model: input.model,
    strategy: input.strategy,
    stream: input.stream,
    needs: input.needs,
    promptTokens: input.prompt_tokens,
    maxTokens: input.max_tokens,
    allowedModels,
    session: input.session,
    keyId: input.key_id,
    purpose: purposeOf(input),
  });
}

/** The explain request's purpose fields, when it gives any (then the routing rules are tried, as for a request that says what it is for). */
function purposeOf(input: ExplainRouteInput): ExplainRequest['purpose'] {
  const given = { requestClass: input.request_class, agentType: input.agent_type, auxiliaryType: input.auxiliary_type, thinking: input.thinking, tools: input.tools };
  return Object.values(given).some((value) => value !== undefined) ? given : undefined;
}

/** Every model, built-in alias and custom alias, for the dashboard's pickers. */
export function listModels(ctx: Pick<ManagementContext, 'catalog' | 'config'>): { data: ManagedModel[] } {
  return { data: listManagedModels(ctx.catalog, ctx.config) };
}
