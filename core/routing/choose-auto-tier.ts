import type { Catalog, Endpoint } from '../catalog/load-catalog.ts';
import { PermissionDeniedError } from '../errors/patchbay-error.ts';

export interface AutoFeatures {
  promptTokens: number;
  maxTokens: number | undefined;
  tools: boolean;
  images: boolean;
}

export interface AutoChoice {
  /** Aliases tried first, then the other tier's as fallbacks. */
  primary: string[];
  secondary: string[];
  reason: string;
}

/** Above these the request goes to the strong tier. */
export const AUTO_STRONG_PROMPT_TOKENS = 2_000;
export const AUTO_STRONG_OUTPUT_TOKENS = 1_024;

/**
 * The `auto` rules. A short, plain request (under 2,000 prompt tokens, at most 1,024 tokens wanted,
 * no tools, no images) goes to the fast tier; anything else to the strong tier. Within a tier the
 * active strategy picks the endpoint; the other tier follows as fallback. Capability and context
 * filters then drop what cannot serve (images need an image model, long prompts a long context).
 */
export function chooseAutoTier(catalog: Catalog, features: AutoFeatures): AutoChoice {
  const why: string[] = [];
  if (features.tools) why.push('tools');
  if (features.images) why.push('images');
  if (features.promptTokens > AUTO_STRONG_PROMPT_TOKENS) why.push(`~${features.promptTokens} prompt tokens`);
  if ((features.maxTokens ?? 0) > AUTO_STRONG_OUTPUT_TOKENS) why.push(`max_tokens ${features.maxTokens}`);
  if (why.length > 0) return { primary: catalog.auto.strong, secondary: catalog.auto.fast, reason: `strong tier (${why.join(', ')})` };
  return { primary: catalog.auto.fast, secondary: catalog.auto.strong, reason: `fast tier (~${features.promptTokens} prompt tokens, no tools or images)` };
}

/** auto's two tiers as endpoints: the chosen tier first, the other as its fallback. */
export interface AutoGroups {
  groups: [{ label: 'auto'; endpoints: Endpoint[] }, { label: 'auto'; endpoints: Endpoint[] }];
  reason: string;
}

/**
 * The tiers of `auto` for one request, narrowed to what the key may use: a key limited to some
 * models (ids or aliases) gets auto's endpoints among those only, in the same tier order; a key
 * that lists `auto` itself, or has no limit, gets the whole tiers. When none of the key's models
 * is in either tier: 403 model_not_allowed naming them, rather than a model the key may not use.
 * `resolve` turns an allowed name into its endpoints (throws for a name that no longer resolves).
 */
export function chooseAutoGroups(catalog: Catalog, features: AutoFeatures, allowedModels: string[] | null, resolve: (name: string) => Endpoint[]): AutoGroups {
  const choice = chooseAutoTier(catalog, features);
  const tier = (aliases: string[]) => aliases.flatMap((alias) => (catalog.aliases.get(alias) ?? []).map((id) => catalog.endpoints.get(id)!).filter(Boolean));
  const primary = tier(choice.primary);
  const secondary = tier(choice.secondary);
  if (!allowedModels || allowedModels.includes('auto')) return { groups: [{ label: 'auto', endpoints: primary }, { label: 'auto', endpoints: secondary }], reason: choice.reason };
  const allowed = new Set<string>(allowedModels);
  for (const name of allowedModels) {
    try {
      for (const endpoint of resolve(name)) allowed.add(endpoint.id);
    } catch {
      // A name that no longer resolves allows nothing more than itself.
    }
  }
  const keep = (endpoints: Endpoint[]) => endpoints.filter((e) => allowed.has(e.id));
  const first = keep(primary);
  const second = keep(secondary);
  if (first.length === 0 && second.length === 0) {
    throw new PermissionDeniedError(
      `This Patchbay key may use "auto" only among its allowed models (${allowedModels.join(', ')}), and none of them is in auto's tiers (${[...choice.primary, ...choice.secondary].join(', ')}). Name one of the key's models instead, or allow a model of auto's tiers.`,
      'model_not_allowed',
      'model',
    );
  }
  // The chosen tier holds none of the key's models: the other tier serves, and the reason says so.
  if (first.length === 0) return { groups: [{ label: 'auto', endpoints: second }, { label: 'auto', endpoints: [] }], reason: `${choice.reason}, only the key's allowed models (none in that tier, so the other)` };
  return { groups: [{ label: 'auto', endpoints: first }, { label: 'auto', endpoints: second }], reason: `${choice.reason}, only the key's allowed models` };
}
