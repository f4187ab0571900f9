import type { PatchbayConfig, ResolvedProvider } from '../config/load-config.ts';
import { AllProvidersFailedError, ProviderError } from '../errors/provider-error.ts';
import { Adjustments } from '../protocols/neutral/adjustments.ts';
import type { CancelSignal } from '../providers/cancel-signal.ts';
import type { ProviderAdapter, UpstreamCall } from '../providers/provider-adapter.ts';
import type { SecretStore } from '../secrets/secret-store.ts';
import { decideAfterFailure } from './decide-after-failure.ts';
import { FirstByteGate } from './first-byte-gate.ts';
import type { HealthTracker } from './health-tracker.ts';
import type { RoutePlan } from './route-plan.ts';
import type { RouteTrace } from './route-trace.ts';
import type { StickyMemory } from './sticky-memory.ts';

export interface ExecuteDeps {
  config: PatchbayConfig;
  secrets: SecretStore;
  adapters: Partial<Record<ResolvedProvider['protocol'], ProviderAdapter>>;
  health: HealthTracker;
  sticky: StickyMemory;
  sleep: (ms: number) => Promise<void>;
}

/**
 * Tries the plan's candidates in order until one answers: records every attempt in the trace and
 * in health, and the answering endpoint in the session's sticky memory. `attempt` pulls a stream's
 * first chunk, so a failure before it falls back; once this returns, the gate is passed.
 *
 * Resolves with the answer; everything else the response and the usage row need is on the trace
 * (the request's own, so that a failure leaves it too): the endpoint and key, every attempt, the
 * answering attempt's adjustments, the strategy and the route reason as it turned out.
 *
 * `onAnswer` is called with the answer as soon as the attempt succeeded (its row on the trace, the
 * gate passed), before health and sticky memory are told: a stream writes its head and first chunk
 * there, so that bookkeeping and a promise turn are not on the way to the first byte.
 */
export async function executeRoute<T>(
  deps: ExecuteDeps,
  plan: RoutePlan,
  trace: RouteTrace,
  signal: CancelSignal,
  stream: boolean,
  attempt: (adapter: ProviderAdapter, call: UpstreamCall) => Promise<T>,
  onAnswer?: (answer: T) => void,
): Promise<T> {
  const { config, secrets, adapters, health, sticky } = deps;
  trace.strategy = plan.strategy;
  trace.reason = plan.reason;
  const stickyKey = plan.sticky?.key ?? null;
  const gate = new FirstByteGate(trace, plan.reason, () => {
    health.record(trace.endpoint!.id, { at: Date.now(), ok: false, latencyMs: 0, stream: true });
    if (stickyKey) sticky.forget(stickyKey, trace.endpoint!.id);
  });
  trace.gate = gate;
  let lastError: ProviderError | undefined;
  for (const endpoint of plan.candidates) {
    if (signal.aborted) break;
    if (!health.isAvailable(endpoint.id, true)) continue;
    const provider = config.providers.get(endpoint.provider);
    // A provider removed while this request was planned.
    if (!provider) continue;
    trace.endpoint = endpoint;
    const call: UpstreamCall = {
      endpoint,
      provider,
      apiKey: secrets.get(provider),
      signal,
      firstByteTimeoutMs: config.firstByteTimeoutMs,
      onRateLimitExhausted: (until) => health.markRateLimited(endpoint.id, until),
      // The provider's keys: the transport tries them within this one attempt (see keyRing).
      keys: secrets.keyRing?.(provider),
      onKey: (label) => (trace.keyLabel = label),
      traceHeaders: undefined,
    };
    for (let waited = false; ; waited = true) {
      const started = performance.now();
      let value: T;
      // Each try starts with an empty record (a fallback endpoint has its own limits); the trace
      // keeps the latest, which is the answering one's. Set on the call, which is this request's own.
      call.adjustments = trace.adjustments = new Adjustments();
      const watch = trace.observer?.startAttempt(endpoint, provider.baseUrl);
      call.traceHeaders = watch?.headers;
      try {
        value = await attempt(adapters[provider.protocol]!, call);
      } catch (error) {
        if (!(error instanceof ProviderError)) {
          health.releaseProbe(endpoint.id);
          throw error;
        }
        // An upstream may quote the credential back in its error text: it must never reach a client, a log or a usage row.
        // (ProviderError redacts every field as it is built; this catches a message amended since.)
        error.redact();
        const latency = round(performance.now() - started);
        // A request the client cancelled says nothing about the endpoint: 499, and no health event.
        const cancelled = signal.aborted;
        const report = {
          provider: provider.name,
          model: endpoint.model,
          status: cancelled ? 499 : error.upstreamStatus || error.status,
          error_type: cancelled ? 'cancelled' : error.type,
          message: error.message,
          latency_ms: latency,
        };
        trace.attempts.push(report);
        watch?.end(report);
        lastError = error;
        const decision = decideAfterFailure(error, { cancelled, waited, maxRetryWaitMs: config.maxRetryWaitMs, now: Date.now() });
        if (decision.next === 'retry-same') {
          await deps.sleep(decision.waitMs);
          continue;
        }
        if (decision.next === 'stop') {
          // The endpoint answered (or the client left): it is up, the request was the problem. Not a health event.
          health.releaseProbe(endpoint.id);
          throw error;
        }
        if (stickyKey) sticky.forget(stickyKey, endpoint.id);
        if (decision.rateLimitedUntilMs !== null) health.markRateLimited(endpoint.id, decision.rateLimitedUntilMs);
        health.record(endpoint.id, { at: Date.now(), ok: false, latencyMs: latency, stream }, decision.health === 'failure');
        break;
      }
      const latency = round(performance.now() - started);
      const report = { provider: provider.name, model: endpoint.model, status: 200, error_type: null, message: null, latency_ms: latency };
      trace.attempts.push(report);
      gate.pass();
      try {
        onAnswer?.(value);
      } finally {
        // After the first byte went out: telemetry's bookkeeping is not on its way either.
        watch?.end(report);
        // The answer is the endpoint's success whatever the caller's writing of it did.
        health.record(endpoint.id, { at: Date.now(), ok: true, latencyMs: latency, stream });
        if (stickyKey) sticky.remember(stickyKey, endpoint.id, Date.now());
      }
      return value;
    }
  }
  if (trace.attempts.length > 0 && trace.attempts.every((a) => a.status === 429) && lastError) {
    throw new AllProvidersFailedError(`Every provider for this model is rate limited; the last said: ${lastError.message}`, trace.attempts, 429, 'rate_limit_exceeded', lastError.retryAfterMs);
  }
  throw new AllProvidersFailedError(
    trace.attempts.length
      ? `All ${trace.attempts.length} provider attempt(s) failed; the last: ${lastError?.message}. See "attempts" for each.`
      : 'Every candidate provider became unavailable (circuit breakers open) before it could be tried.',
    trace.attempts,
    trace.attempts.length ? 502 : 503,
    trace.attempts.length ? 'all_providers_failed' : 'no_eligible_provider',
  );
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
