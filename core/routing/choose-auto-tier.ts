import type { Catalog } from '../catalog/load-catalog.ts';

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
