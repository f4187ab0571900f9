import type { PatchbayConfig } from '../config/load-config.ts';

/** The routing settings as GET /api/routing answers them (and the live event stream tells them). */
export function routingView(config: PatchbayConfig) {
  return {
    strategy: config.strategy,
    paused: config.paused,
    weights: config.weights,
    fallbacks: Object.fromEntries(config.fallbacks),
    aliases: Object.fromEntries(config.aliases),
    /** routing.rules in their order (first match wins), each condition as a list. */
    rules: config.rules.map((rule) => ({ ...(rule.name !== null ? { name: rule.name } : {}), when: rule.when, model: rule.model })),
    breaker: config.breaker,
    max_retry_wait_ms: config.maxRetryWaitMs,
    connect_timeout_ms: config.connectTimeoutMs,
    first_byte_timeout_ms: config.firstByteTimeoutMs,
  };
}

export type RoutingView = ReturnType<typeof routingView>;
