import type { UsageRecord } from '../../core/usage/usage-store.ts';

/** A small deterministic PRNG (mulberry32), so generated databases are the same on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const GENERATED_PROVIDERS = ['openai', 'anthropic', 'google', 'groq', 'together', 'ollama'];

export interface GenerateOptions {
  rows: number;
  from: number;
  to: number;
  keys: string[];
  seed?: number;
}

/**
 * Usage rows as a busy month of traffic would leave them: 6 providers with 5 models each, the
 * given keys (and some requests without one), mostly 200s with 429s, 5xx, 400s and 503s (no
 * provider), log-normal latencies per provider, many rows sharing a timestamp, ids not quite in
 * ts order (a row is written when its request ends). Oldest first.
 */
export function* generateUsageRows(options: GenerateOptions): Generator<UsageRecord> {
  const next = random(options.seed ?? 1);
  const span = options.to - options.from;
  const step = span / options.rows;
  let previousTs = -1;
  for (let i = 0; i < options.rows; i++) {
    const p = Math.floor(next() * GENERATED_PROVIDERS.length);
    const provider = GENERATED_PROVIDERS[p];
    const model = `${provider}-model-${Math.floor(next() * 5)}`;
    const roll = next();
    const status = roll < 0.9 ? 200 : roll < 0.93 ? 429 : roll < 0.96 ? 500 : roll < 0.97 ? 502 : roll < 0.99 ? 400 : 503;
    const routed = status !== 503;
    // A third of the rows share the previous row's ts (bursts), which the request log must page
    // through correctly; the others overlap their neighbours, so ids are not in ts order.
    let ts = previousTs >= 0 && next() < 0.33 ? previousTs : Math.floor(options.from + (i + next() * 3 - 1) * step);
    ts = Math.min(Math.max(ts, options.from), options.to - 1);
    previousTs = ts;
    const normal = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
    const latency = Math.round(Math.exp(Math.log(200 + p * 150) + 0.7 * normal) * 100) / 100;
    const ok = status < 400;
    const prompt = ok ? Math.floor(next() * 3000) + 5 : 0;
    const completion = ok ? Math.floor(next() * 800) : 0;
    const keyIndex = Math.floor(next() * (options.keys.length + 1));
    yield {
      ts,
      requestId: `req_gen_${i.toString(36)}`,
      keyId: keyIndex < options.keys.length ? options.keys[keyIndex] : null,
      endpoint: 'chat',
      requestedModel: model,
      provider: routed ? provider : null,
      model: routed ? model : null,
      strategy: 'balanced',
      status,
      errorType: ok ? null : status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error',
      stream: next() < 0.4,
      promptTokens: prompt,
      completionTokens: completion,
      totalTokens: prompt + completion,
      inputPrice: routed ? 1 + p : null,
      outputPrice: routed ? 4 + p : null,
      costUsd: ((1 + p) * prompt + (4 + p) * completion) / 1_000_000,
      latencyMs: latency,
      firstByteMs: null,
      attempts: routed ? [{ provider, model, status, error_type: null, message: null, latency_ms: latency }] : [],
      routeReason: routed ? `alias ${model}; balanced chose ${provider}/${model}` : null,
    };
  }
}
