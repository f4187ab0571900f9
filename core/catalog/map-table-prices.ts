import type { Endpoint } from './catalog-types.ts';
import type { PriceTier } from './catalog-schema.ts';
import type { ModelPrice, TieredPrice } from './price-table-schema.ts';

/** The catalog's price fields of one entry, USD per million tokens. */
export type EndpointPrices = Pick<Endpoint, 'inputPrice' | 'outputPrice' | 'cacheReadPrice' | 'cacheWritePrice' | 'cacheWrite1hPrice' | 'priceTiers'>;

/** genai-prices' token units -> the catalog's fields (its audio, image and per-request units have no place in a usage row yet). */
const UNITS = {
  input_mtok: 'inputPrice',
  output_mtok: 'outputPrice',
  cache_read_mtok: 'cacheReadPrice',
  cache_write_mtok: 'cacheWritePrice',
  cache_write_1h_mtok: 'cacheWrite1hPrice',
} as const;
type PriceField = (typeof UNITS)[keyof typeof UNITS];

/**
 * A table entry's prices as catalog fields, its long-context prices as tiers; null when it has no
 * input price, or no output price for a chat model (such a model is unknown, not free).
 */
export function mapTablePrices(prices: ModelPrice, embedding: boolean): EndpointPrices | null {
  const base: Partial<Record<PriceField, number>> = {};
  const tiers = new Map<number, PriceTier>();
  for (const [unit, field] of Object.entries(UNITS) as [keyof typeof UNITS, PriceField][]) {
    const value = prices[unit];
    if (value === undefined) continue;
    if (typeof value === 'number') {
      base[field] = value;
      continue;
    }
    base[field] = value.base;
    for (const tier of (value as TieredPrice).tiers) {
      const entry = tiers.get(tier.start) ?? { above: tier.start };
      entry[field] = tier.price;
      tiers.set(tier.start, entry);
    }
  }
  if (base.inputPrice === undefined) return null;
  if (base.outputPrice === undefined && !embedding) return null;
  const mapped: EndpointPrices = { ...base, inputPrice: base.inputPrice, outputPrice: base.outputPrice ?? 0 };
  if (tiers.size > 0) mapped.priceTiers = [...tiers.values()].sort((a, b) => a.above - b.above);
  return mapped;
}
