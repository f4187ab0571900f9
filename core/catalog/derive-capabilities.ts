import { FAMILY_RULES, type ProviderPolicy } from './catalog-policy.ts';
import type { Capability, CatalogEndpointData } from './catalog-schema.ts';
import type { ModelsDevModel } from './models-dev-schema.ts';

export interface DerivedCapabilities {
  capabilities: Capability[];
  reasoningEfforts?: string[];
  /** Which sources said so, for the entry's `sources.capabilities`. */
  source: string;
}

/**
 * What a model can do: what Patchbay's previous catalog said (in Patchbay's own words, checked by
 * its tests), else models.dev's flags, plus the provider's documented family facts; a chat model
 * nothing is known of gets Patchbay's usual assumption for an unknown model (chat and tools),
 * marked `default`, so a request is sent and the provider decides.
 */
export function deriveCapabilities(
  provider: string,
  model: string,
  policy: ProviderPolicy,
  embedding: boolean,
  known: { previous?: CatalogEndpointData; modelsDev?: ModelsDevModel; previousId: string; modelsDevId: string },
): DerivedCapabilities {
  const sources: string[] = [];
  const capabilities = new Set<Capability>();
  if (known.previous) {
    for (const c of known.previous.capabilities) capabilities.add(c);
    sources.push(known.previousId);
  }
  if (embedding) {
    capabilities.add('embeddings');
    if (!known.previous) sources.push('default');
    return { capabilities: ordered(capabilities), source: sources.join('+') };
  }
  // The previous catalog's list is whole (gpt-3.5-turbo-instruct does completions only).
  if (!known.previous) for (const c of policy.chatCapabilities) capabilities.add(c);
  const md = known.modelsDev;
  if (md && !known.previous) {
    if (md.tool_call) capabilities.add('tools');
    if (md.reasoning) capabilities.add('reasoning');
    if (md.structured_output) capabilities.add('json_schema');
    const input = md.modalities?.input ?? [];
    if (input.includes('image')) capabilities.add('images');
    if (input.includes('pdf')) capabilities.add('pdf');
    sources.push(known.modelsDevId);
  }
  let reasoningEfforts: string[] | undefined;
  let family = false;
  for (const rule of FAMILY_RULES) {
    if (rule.provider !== provider || !rule.models.test(model)) continue;
    for (const c of rule.capabilities) capabilities.add(c);
    if (rule.reasoningEfforts) reasoningEfforts = rule.reasoningEfforts;
    family = true;
  }
  if (family) sources.push('family');
  if (sources.length === 0) {
    capabilities.add('tools');
    sources.push('default');
  }
  return { capabilities: ordered(capabilities), ...(reasoningEfforts ? { reasoningEfforts } : {}), source: sources.join('+') };
}

const ORDER: Capability[] = ['chat', 'completions', 'embeddings', 'tools', 'images', 'pdf', 'json_schema', 'logprobs', 'n', 'dimensions', 'streaming', 'reasoning'];
function ordered(set: Set<Capability>): Capability[] {
  return ORDER.filter((c) => set.has(c));
}
