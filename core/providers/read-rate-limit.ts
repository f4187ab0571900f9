import { headerValue, type UpstreamResponse } from './upstream-response.ts';

/**
 * Reads a provider's rate-limit headers from a successful answer. When it says no request (or no
 * token) is left in the current window, returns when the window resets, so routing can skip the
 * endpoint until then instead of collecting a 429.
 *
 * OpenAI, Groq, Together: x-ratelimit-remaining-requests / -tokens with x-ratelimit-reset-* as Go
 * durations ("12ms", "6m0s", "2m59.56s"). Anthropic: anthropic-ratelimit-requests-remaining /
 * -tokens-remaining with -reset as RFC 3339 instants.
 */
export function exhaustedUntil(headers: UpstreamResponse['headers'], now = Date.now()): number | null {
  let until: number | null = null;
  for (const names of HEADER_NAMES) {
    if (headerValue(headers, names.openAiRemaining) === '0') {
      const reset = parseGoDuration(headerValue(headers, names.openAiReset));
      if (reset !== null) until = Math.max(until ?? 0, now + reset);
    }
    if (headerValue(headers, names.anthropicRemaining) === '0') {
      const reset = Date.parse(headerValue(headers, names.anthropicReset) ?? '');
      if (!Number.isNaN(reset)) until = Math.max(until ?? 0, reset);
    }
  }
  return until;
}

/** The headers read on every answer, spelled out once (not rebuilt per response). */
const HEADER_NAMES = (['requests', 'tokens'] as const).map((kind) => ({
  openAiRemaining: `x-ratelimit-remaining-${kind}`,
  openAiReset: `x-ratelimit-reset-${kind}`,
  anthropicRemaining: `anthropic-ratelimit-${kind}-remaining`,
  anthropicReset: `anthropic-ratelimit-${kind}-reset`,
}));

/** "1h2m3.5s", "250ms", "7.66s" -> milliseconds; null when absent or not a duration. */
export function parseGoDuration(value: string | undefined): number | null {
  if (!value) return null;
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000001 };
  let total = 0;
  let matched = '';
  for (const match of value.trim().matchAll(/(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/g)) {
    total += Number(match[1]) * units[match[2]];
    matched += match[0];
  }
  return matched === value.trim() && matched !== '' ? total : null;
}
