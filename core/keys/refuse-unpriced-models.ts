import type { Endpoint } from '../catalog/catalog-types.ts';
import { PermissionDeniedError } from '../errors/patchbay-error.ts';

/**
 * For a key with a USD cap, the endpoints it may use: those with a known price, so no capped key
 * spends unmetered. When none has one, a 403 naming the model and how to give it a price.
 * A key without a USD cap may use them all (their usage rows record no cost).
 */
export function pricedEndpointsFor(key: { monthlyUsdCap: number | null }, model: string, endpoints: Endpoint[]): Endpoint[] {
  if (key.monthlyUsdCap === null) return endpoints;
  const priced = endpoints.filter((e) => !e.priceUnknown);
  if (priced.length > 0 || endpoints.length === 0) return priced;
  const example = endpoints[0];
  throw new PermissionDeniedError(
    `The model "${model}" has no known price, and this key has a monthly spend cap of $${key.monthlyUsdCap}: Patchbay cannot count what it would spend. ` +
      `Give it a price in the config file (providers.${example.provider}.models: [{"id": "${example.model}", "inputPrice": <USD per million input tokens>, "outputPrice": <USD per million output tokens>}]), ` +
      'run "patchbay models update" for a newer price table, or use a key without a spend cap.',
    'model_price_unknown',
    'model',
  );
}
