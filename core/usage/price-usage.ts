import type { Endpoint } from '../catalog/load-catalog.ts';

/** One answer's token counts as a usage row keeps them: the cache and reasoning counts are parts of prompt / completion. */
export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens: number;
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
  reasoningTokens: number;
}

/**
 * What an answer cost in USD at the endpoint's prices (USD per million tokens): the uncached
 * prompt at the input price, cache reads and writes at their own prices, the completion at the
 * output price. Reasoning tokens are already in completionTokens, so they are not added again.
 * A model without a cache price has those tokens priced as input, which is what its provider
 * charges when it has no discount (and never less than the truth where it has one we lack).
 */
export function priceUsage(counts: TokenCounts, endpoint: Pick<Endpoint, 'inputPrice' | 'outputPrice' | 'cacheReadPrice' | 'cacheWritePrice' | 'cacheWrite1hPrice'>): number {
  const cached = counts.cacheReadTokens + counts.cacheWrite5mTokens + counts.cacheWrite1hTokens;
  // An upstream whose cache counts exceed its prompt count is inconsistent; never price a negative.
  const uncached = Math.max(0, counts.promptTokens - cached);
  const input = endpoint.inputPrice;
  const write5m = endpoint.cacheWritePrice ?? input;
  return (
    (uncached * input +
      counts.cacheReadTokens * (endpoint.cacheReadPrice ?? input) +
      counts.cacheWrite5mTokens * write5m +
      counts.cacheWrite1hTokens * (endpoint.cacheWrite1hPrice ?? write5m) +
      counts.completionTokens * endpoint.outputPrice) /
    1_000_000
  );
}
