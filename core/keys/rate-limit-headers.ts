import type { ApiKeyRecord } from './key-store.ts';

/** The x-ratelimit-* headers from the shared windows' answer (both resets: when the oldest admission leaves). */
export function writeRateHeaders(key: ApiKeyRecord, requests: number, tokens: number, resetMs: number, headers: Record<string, string> = {}): Record<string, string> {
  const reset = formatDuration(Math.max(0, resetMs));
  if (key.rpmLimit !== null) {
    headers['x-ratelimit-limit-requests'] = String(key.rpmLimit);
    headers['x-ratelimit-remaining-requests'] = String(Math.max(0, key.rpmLimit - requests));
    headers['x-ratelimit-reset-requests'] = reset;
  }
  if (key.tpmLimit !== null) {
    headers['x-ratelimit-limit-tokens'] = String(key.tpmLimit);
    headers['x-ratelimit-remaining-tokens'] = String(Math.max(0, key.tpmLimit - tokens));
    headers['x-ratelimit-reset-tokens'] = reset;
  }
  return headers;
}

/** OpenAI writes reset times as Go durations: "12ms", "1.5s", "1m0s". */
export function formatDuration(ms: number): string {
  if (ms <= 0) return '0s';
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  const seconds = ms / 1000;
  // Millisecond precision, without trailing zeros ("1.5s"); cheaper than Number(toFixed(3)).
  if (seconds < 60) return `${Math.round(ms) / 1000}s`;
  return `${Math.floor(seconds / 60)}m${Math.round(seconds % 60)}s`;
}
