import { describe, expect, it } from 'vitest';
import { unpricedEndpoint } from '../../core/catalog/discovered-endpoints.ts';
import { loadCatalog } from '../../core/catalog/load-catalog.ts';
import { parseConfig } from '../../core/config/load-config.ts';
import { pricedEndpointsFor } from '../../core/keys/refuse-unpriced-models.ts';
import { costOfAnswer } from '../../core/usage/cost-of-answer.ts';

const catalog = loadCatalog(parseConfig({}, null).providers);
const counts = (promptTokens: number, completionTokens: number) => ({ promptTokens, completionTokens, cacheReadTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, reasoningTokens: 0 });

describe('a model without a known price', () => {
  const unknown = unpricedEndpoint('openai', 'gpt-6.2-sol');

  it('costs null, never 0; a priced one costs its long-context price past the threshold', () => {
    expect(costOfAnswer(counts(1000, 100), unknown)).toBeNull();
    const sonnet = catalog.endpoints.get('anthropic/claude-sonnet-4-5-20250929')!;
    expect(costOfAnswer(counts(1_000_000, 1_000_000), { ...sonnet, priceTiers: undefined })).toBeCloseTo(3 + 15);
    expect(costOfAnswer(counts(1_000_000, 1_000_000), sonnet)).toBeCloseTo(6 + 22.5);
  });

  it('is refused to a key with a USD cap, with a 403 naming the model and how to price it', () => {
    let error: { status: number; code: string; message: string } | undefined;
    try {
      pricedEndpointsFor({ monthlyUsdCap: 5 }, 'openai/gpt-6.2-sol', [unknown]);
    } catch (e) {
      error = e as typeof error;
    }
    expect(error).toMatchObject({ status: 403, code: 'model_price_unknown' });
    expect(error?.message).toContain('"openai/gpt-6.2-sol" has no known price');
    expect(error?.message).toContain('providers.openai.models: [{"id": "gpt-6.2-sol", "inputPrice"');
  });

  it('a capped key keeps the priced members of an alias; an uncapped key takes them all', () => {
    const gpt4o = catalog.endpoints.get('openai/gpt-4o')!;
    expect(pricedEndpointsFor({ monthlyUsdCap: 5 }, 'mixed', [unknown, gpt4o])).toEqual([gpt4o]);
    expect(pricedEndpointsFor({ monthlyUsdCap: null }, 'openai/gpt-6.2-sol', [unknown])).toEqual([unknown]);
  });
});
