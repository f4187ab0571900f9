import type { Endpoint } from '../catalog/catalog-types.ts';
import { selectPriceTier } from '../catalog/select-price-tier.ts';
import { priceUsage, type TokenCounts } from './price-usage.ts';

/**
 * What an answer cost in USD, at the long-context price when its prompt passed a tier's
 * threshold; null when the model has no known price (a usage row then says so: never 0).
 */
export function costOfAnswer(counts: TokenCounts, endpoint: Pick<Endpoint, 'inputPrice' | 'outputPrice' | 'cacheReadPrice' | 'cacheWritePrice' | 'cacheWrite1hPrice' | 'priceTiers' | 'priceUnknown'>): number | null {
  if (endpoint.priceUnknown) return null;
  return priceUsage(counts, selectPriceTier(endpoint, counts.promptTokens));
}
