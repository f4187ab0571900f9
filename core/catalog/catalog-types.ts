import type { Capability, CatalogData, CatalogSource, LaterPrice, PriceTier } from './catalog-schema.ts';
import type { MatchLogic } from './match-model-id.ts';

/** One model as one provider serves it: the unit that routing ranks and health tracks. */
export interface Endpoint {
  /** `provider/model`, the id a client pins with. */
  id: string;
  provider: string;
  /** The provider's own model id. */
  model: string;
  inputPrice: number;
  outputPrice: number;
  /**
   * USD per million prompt tokens read from the provider's prompt cache, and written to it
   * (Anthropic's 5-minute and 1-hour writes). Undefined where the catalog has no such price: those
   * tokens are then priced as input (see priceUsage).
   */
  cacheReadPrice?: number;
  cacheWritePrice?: number;
  cacheWrite1hPrice?: number;
  /** Higher prices above a prompt size (long-context pricing), lowest threshold first; see selectPriceTier. */
  priceTiers?: PriceTier[];
  /**
   * True when no table prices this model (a model only the provider's own list names): the prices
   * above are 0 placeholders, never a price. Usage rows of it record no cost; a USD-capped key refuses it.
   */
  priceUnknown?: boolean;
  /** Prices the table announces from later days, earliest first (prices-on-day.ts applies the one begun). */
  laterPrices?: LaterPrice[];
  /** 0 when unknown. */
  contextWindow: number;
  /** 0 when unknown. */
  maxOutput: number;
  dimensions?: number;
  /** The values the provider's API takes for this model's reasoning effort; undefined when unknown. */
  reasoningEfforts?: string[];
  /** The upstream has a legacy /completions endpoint for this model; otherwise completions go through chat. */
  nativeCompletions: boolean;
  capabilities: ReadonlySet<Capability>;
}

export interface Catalog {
  /** What the catalog was loaded from: the table's data and the providers' own lists. A config change loads again from them. */
  data: CatalogData;
  discovered: Map<string, ProviderModel[]>;
  /** The day of the price table the prices come from. */
  pricesAsOf: string;
  /** The tables the catalog was built from, with their dates. */
  sources: CatalogSource[];
  /** Per provider, the table's rules for other ids of a listed model (dated snapshots), in table order: see findPricedModel. */
  priceRules: Map<string, { match: MatchLogic; endpoint: Endpoint }[]>;
  endpoints: Map<string, Endpoint>;
  /** Short alias -> endpoint ids, in catalog order. */
  aliases: Map<string, string[]>;
  /** Unprefixed embedding model name -> endpoint ids. */
  embeddingModels: Map<string, string[]>;
  auto: { fast: string[]; strong: string[] };
  /** The user's own aliases (routing.aliases), resolved to endpoints; they take precedence over everything else. */
  customAliases: Map<string, Endpoint[]>;
}

/** One model as a provider's own list names it (core/providers/discover-models.ts reads the lists). */
export interface ProviderModel {
  id: string;
  kind?: 'chat' | 'embeddings' | 'other';
  contextWindow?: number;
  maxOutput?: number;
}
