import type { Endpoint } from './catalog-types.ts';

export type EndpointPriceFields = Pick<Endpoint, 'inputPrice' | 'outputPrice' | 'cacheReadPrice' | 'cacheWritePrice' | 'cacheWrite1hPrice'>;

/**
 * The prices one answer is billed at: above a tier's threshold of prompt tokens (cached ones
 * included, as the providers count a long prompt) its prices replace the base ones, field by
 * field; the highest tier passed wins. A prompt of exactly the threshold stays at the base price.
 */
export function selectPriceTier(endpoint: EndpointPriceFields & Pick<Endpoint, 'priceTiers'>, promptTokens: number): EndpointPriceFields {
  const { inputPrice, outputPrice, cacheReadPrice, cacheWritePrice, cacheWrite1hPrice } = endpoint;
  const prices: EndpointPriceFields = { inputPrice, outputPrice, cacheReadPrice, cacheWritePrice, cacheWrite1hPrice };
  for (const tier of endpoint.priceTiers ?? []) {
    if (promptTokens <= tier.above) continue;
    if (tier.inputPrice !== undefined) prices.inputPrice = tier.inputPrice;
    if (tier.outputPrice !== undefined) prices.outputPrice = tier.outputPrice;
    if (tier.cacheReadPrice !== undefined) prices.cacheReadPrice = tier.cacheReadPrice;
    if (tier.cacheWritePrice !== undefined) prices.cacheWritePrice = tier.cacheWritePrice;
    if (tier.cacheWrite1hPrice !== undefined) prices.cacheWrite1hPrice = tier.cacheWrite1hPrice;
  }
  return prices;
}
