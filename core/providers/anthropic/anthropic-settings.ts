/**
 * What Patchbay pins and what differs between Claude generations, as data.
 *
 * API version: 2023-06-01 with `x-api-key`, the pair the 0.x SDKs send (reference §8.1). Under
 * it `temperature` (0..1), `top_p` and a top-level `system` hold (§8.2).
 */
export const ANTHROPIC_VERSION = '2023-06-01';

/** `max_tokens` is required; used only when neither the request nor the catalog gives a value. */
export const FALLBACK_MAX_TOKENS = 4096;

/**
 * How a model family takes OpenAI's sampling parameters:
 * - `both`: temperature and top_p may be sent together (Claude 3.x, Claude 4.0).
 * - `one-of`: 400 "`temperature` and `top_p` cannot both be specified for this model" (observed on
 *   Sonnet 4.5, Haiku 4.5, Sonnet 4.6; assumed for the whole 4.1..4.6 generation). When a client
 *   sends both, temperature is kept and top_p dropped.
 * - `fixed`: models released after Opus 4.6 reject any temperature but 1.0 and any top_p below
 *   0.99, so both are left out rather than turning the request into a 400.
 */
export type SamplingRule = 'both' | 'one-of' | 'fixed';

/** Ordered by generation; the first row whose `upTo` is at least the model's version applies. */
const SAMPLING_BY_VERSION: { upTo: number; rule: SamplingRule }[] = [
  { upTo: 4.0, rule: 'both' },
  { upTo: 4.6, rule: 'one-of' },
  { upTo: Infinity, rule: 'fixed' },
];

/** A model id Patchbay cannot date (a user's alias, a new naming scheme): the rule that never 400s on both. */
const UNKNOWN_MODEL_RULE: SamplingRule = 'one-of';

export function samplingRuleFor(model: string): SamplingRule {
  const version = claudeVersion(model);
  if (version === undefined) return UNKNOWN_MODEL_RULE;
  return SAMPLING_BY_VERSION.find((row) => version <= row.upTo)!.rule;
}

/**
 * The generation in a Claude model id as a number: `claude-3-5-sonnet-20241022` -> 3.5,
 * `claude-sonnet-4-5-20250929` -> 4.5, `claude-opus-4-20250514` -> 4, `claude-sonnet-5` -> 5.
 * A minor version is a single digit; an 8-digit date suffix is not one.
 */
export function claudeVersion(model: string): number | undefined {
  const match = /^claude-(?:(\d+)(?:-(\d)(?!\d))?-[a-z]+|[a-z]+-(\d+)(?:-(\d)(?!\d))?)(?:-|$)/.exec(model);
  if (!match) return undefined;
  const major = Number(match[1] ?? match[3]);
  const minor = Number(match[2] ?? match[4] ?? 0);
  return major + minor / 10;
}
