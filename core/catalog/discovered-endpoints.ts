import { PROVIDER_POLICIES } from './catalog-policy.ts';
import type { Capability } from './catalog-schema.ts';
import { findPricedModel } from './find-priced-model.ts';
import type { Catalog, Endpoint, ProviderModel } from './catalog-types.ts';

export type { ProviderModel };

/** What a list names that is not a chat or embedding model (OpenAI's list says nothing of kinds). */
const NOT_CHAT = /dall-e|whisper|tts|sora|imagen|veo|moderation|davinci|babbage|transcribe|realtime|audio|image|search|computer-use|aqa|embedding-gecko/i;

/**
 * The endpoint of a provider's model that no table lists: prices unknown (0 placeholders, never
 * billed as 0), what it can do assumed as for any chat model of that provider so a request is
 * sent and the provider decides; its window and output limit as the provider's list says, or unknown.
 */
export function unpricedEndpoint(provider: string, model: string, facts: Omit<ProviderModel, 'id'> = {}): Endpoint {
  const policy = PROVIDER_POLICIES[provider];
  const embedding = facts.kind === 'embeddings';
  const capabilities = new Set<Capability>(embedding ? ['embeddings'] : [...(policy?.chatCapabilities ?? ['chat', 'completions', 'streaming']), 'tools', 'images']);
  return {
    id: `${provider}/${model}`,
    provider,
    model,
    inputPrice: 0,
    outputPrice: 0,
    priceUnknown: true,
    contextWindow: facts.contextWindow ?? 0,
    maxOutput: embedding ? 0 : (facts.maxOutput ?? 0),
    nativeCompletions: !embedding && policy?.nativeCompletions === true,
    capabilities,
  };
}

/**
 * The catalog's endpoint for a provider-prefixed id, listed or not: the listed model, a dated id
 * the table's rules price, or else an unpriced endpoint, so that what the provider might serve is
 * sent to it (its own 404 comes back if it does not). For a built-in provider only.
 */
export function endpointForProviderModel(catalog: Pick<Catalog, 'endpoints' | 'priceRules'>, provider: string, model: string): Endpoint {
  return findPricedModel(catalog, provider, model) ?? unpricedEndpoint(provider, model);
}

/**
 * Endpoints for the models the providers' own lists name, beyond the catalog's: each priced by the
 * table where its rules cover the id, else unpriced. A listed model whose window or output limit
 * the tables left unknown takes the provider's. Non-chat models (images, audio) are left out.
 */
export function discoveredEndpoints(catalog: Pick<Catalog, 'endpoints' | 'priceRules'>, discovered: Map<string, ProviderModel[]>): Endpoint[] {
  const out: Endpoint[] = [];
  for (const [provider, models] of discovered) {
    const policy = PROVIDER_POLICIES[provider];
    if (!policy) continue;
    for (const found of models) {
      if (found.kind === 'other' || NOT_CHAT.test(found.id) || policy.exclude.some((r) => r.test(found.id))) continue;
      const known = findPricedModel(catalog, provider, found.id);
      if (!known) {
        out.push(unpricedEndpoint(provider, found.id, found));
        continue;
      }
      const window = known.contextWindow || found.contextWindow || 0;
      const maxOutput = known.maxOutput || (known.capabilities.has('embeddings') ? 0 : found.maxOutput) || 0;
      const listed = catalog.endpoints.get(known.id) === known;
      if (!listed || window !== known.contextWindow || maxOutput !== known.maxOutput) out.push({ ...known, contextWindow: window, maxOutput });
    }
  }
  return out;
}
