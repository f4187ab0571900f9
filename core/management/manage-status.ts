// The running Patchbay as a whole: GET /api/status, its base URL, GET /api/events.
import { PatchbayError } from '../errors/patchbay-error.ts';
import type { EventListener } from '../events/event-hub.ts';
import { summarizeProvider } from '../routing/health-tracker.ts';
import type { ManagementContext } from './management-context.ts';

/** One provider on the status page: its breaker and health over the health window, across its endpoints. */
export interface ProviderStatus {
  name: string;
  enabled: boolean;
  key_source: 'env' | 'keychain' | 'none';
  requires_key: boolean;
  /** A secret exists but is not sent: the base URL moved to another origin since it was set. */
  secret_withheld: boolean;
  /** The worst state among the provider's endpoints. */
  breaker: 'closed' | 'open' | 'half_open';
  latency_p50_ms: number | null;
  /** Failed attempts over all attempts in the health window, a fallback's rescued failures included. */
  error_rate: number | null;
  samples: number;
  /** The provider's last failed attempt (kept after the window), or null. */
  last_error: { at: string; model: string; status: number; error_type: string | null; message: string | null } | null;
}

type StatusContext = Pick<ManagementContext, 'config' | 'secrets' | 'health' | 'version' | 'startedAt' | 'baseUrl' | 'idleMemory'>;

export function status(ctx: StatusContext) {
  return {
    status: 'ok',
    version: ctx.version,
    base_url: ctx.baseUrl,
    providers: providerStatuses(ctx),
    uptime_s: Math.round((Date.now() - ctx.startedAt) / 1000),
    keychain: ctx.secrets.available ? 'available' : 'unavailable',
    memory_mb: Object.fromEntries(Object.entries(process.memoryUsage()).map(([k, v]) => [k, Math.round(v / 1e5) / 10])),
    ...(ctx.idleMemory ? { idle_memory: ctx.idleMemory() } : {}),
    strategy: ctx.config.strategy,
    paused: ctx.config.paused,
    endpoints: ctx.health.snapshot(),
  };
}

function providerStatuses(ctx: Pick<ManagementContext, 'config' | 'secrets' | 'health'>): ProviderStatus[] {
  return [...ctx.config.providers.values()].map((p) => {
    const health = summarizeProvider(ctx.health, p.name);
    return {
      name: p.name,
      enabled: p.enabled,
      key_source: ctx.secrets.source(p),
      requires_key: p.requiresKey,
      secret_withheld: ctx.secrets.withheldReason(p) !== null,
      breaker: health.breaker === 'half-open' ? 'half_open' : health.breaker,
      latency_p50_ms: health.latencyP50,
      error_rate: health.errorRate,
      samples: health.samples,
      last_error: health.lastError ? { ...health.lastError, at: new Date(health.lastError.at).toISOString() } : null,
    };
  });
}

/** Told once the server listens: status and the agents' snippets show it. */
export function setBaseUrl(ctx: Pick<ManagementContext, 'baseUrl'>, url: string): void {
  ctx.baseUrl = url;
}

/** Live events (GET /api/events); returns the unsubscribe function. */
export function subscribeEvents(ctx: Pick<ManagementContext, 'events'>, listener: EventListener, onClose: () => void): () => void {
  if (!ctx.events) throw new PatchbayError('Live events are not available in this mode.', { status: 404, type: 'invalid_request_error', code: 'unknown_url' });
  return ctx.events.subscribe(listener, onClose);
}
