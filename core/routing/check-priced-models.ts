import { pricedEndpointsFor } from '../keys/refuse-unpriced-models.ts';
import type { RouteShape } from './resolve-route-groups.ts';
import type { RouteRequest, Skip } from './route-plan.ts';

/**
 * For a key with a USD cap (`pricedOnly`): the endpoints left out because no table prices their
 * model, so no capped key spends unmetered. When the model asked for has none with a price, a 403
 * naming it and how to give it one, unless the caller explains (`skips`). Null: no such restriction.
 */
export function checkPricedModels(request: RouteRequest, shape: RouteShape, skips?: Skip[]): Set<string> | null {
  if (!request.pricedOnly) return null;
  const refused = new Set<string>();
  shape.named.forEach((group, index) => {
    const unpriced = group.endpoints.filter((e) => e.priceUnknown);
    if (unpriced.length === 0) return;
    // The model asked for (not a fallback) with no priced endpoint at all is refused outright.
    if (index === 0 && !skips && !shape.auto) pricedEndpointsFor({ monthlyUsdCap: request.usdCap ?? 0 }, group.label, group.endpoints);
    for (const endpoint of unpriced) {
      if (refused.has(endpoint.id)) continue;
      refused.add(endpoint.id);
      skips?.push({ endpoint, code: 'price_unknown', reason: `no price table knows ${endpoint.id}, and the key has a USD cap` });
    }
  });
  return refused;
}
