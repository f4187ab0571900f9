import type { Endpoint } from './catalog-types.ts';

type Priced = Pick<Endpoint, 'inputPrice' | 'outputPrice' | 'cacheReadPrice' | 'cacheWritePrice' | 'cacheWrite1hPrice' | 'priceTiers' | 'laterPrices'>;

/** A day as the price table dates its changes: YYYY-MM-DD in UTC. */
export function priceDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/**
 * The endpoint with the prices in effect on `day`: the latest of its later prices that has begun
 * (replacing all of its prices: a change that leaves out a cache price leaves none), else its own;
 * only the changes still to come stay in laterPrices. The same object when nothing changed, so
 * pricing a request costs one comparison (the catalog is loaded again when a change day begins).
 */
export function pricesOnDay<E extends Priced>(endpoint: E, day: string): E {
  const later = endpoint.laterPrices;
  if (!later || later.length === 0 || later[0].from > day) return endpoint;
  let begun = later[0];
  for (const entry of later) if (entry.from <= day) begun = entry;
  const { from: _, ...prices } = begun;
  const toCome = later.filter((entry) => entry.from > day);
  return { ...endpoint, cacheReadPrice: undefined, cacheWritePrice: undefined, cacheWrite1hPrice: undefined, priceTiers: undefined, ...prices, laterPrices: toCome.length > 0 ? toCome : undefined };
}
