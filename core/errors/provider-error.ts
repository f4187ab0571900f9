import { redactSecrets } from './redact-secrets.ts';
import { PatchbayError } from './patchbay-error.ts';

export interface ProviderErrorInit {
  provider: string;
  /** Upstream HTTP status, or 0 for a network error / timeout before any status. */
  upstreamStatus: number;
  message: string;
  type?: string;
  code?: string | null;
  param?: string | null;
  /** True when another endpoint may succeed: 5xx, timeouts, network errors, 429 without a usable retry window. */
  retryable: boolean;
  /** Retry window the upstream announced (retry-after), in milliseconds. */
  retryAfterMs?: number;
  /** A timeout or network failure rather than an HTTP answer. */
  kind?: 'http' | 'timeout' | 'network' | 'stream';
}

/**
 * An upstream provider failed. Carries whether the failure is worth trying elsewhere; the routing
 * executor decides on fallback from these fields only, never from the message text.
 */
export class ProviderError extends PatchbayError {
  readonly provider: string;
  readonly upstreamStatus: number;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly kind: 'http' | 'timeout' | 'network' | 'stream';

  constructor(init: ProviderErrorInit) {
    const status = clientStatusFor(init);
    // Every field may hold text copied from an upstream answer, which may quote a provider secret:
    // this is the one place all of them are cleaned, whichever adapter or stream reader built the error.
    super(redactSecrets(`${init.provider}: ${init.message}`), {
      status,
      type: redactSecrets(init.type) ?? defaultTypeFor(status),
      code: redactSecrets(init.code) ?? null,
      param: redactSecrets(init.param) ?? null,
      extra: { provider: init.provider },
      headers:
        init.retryAfterMs !== undefined && status === 429
          ? { 'retry-after': String(Math.max(1, Math.ceil(init.retryAfterMs / 1000))) }
          : undefined,
    });
    this.provider = init.provider;
    this.upstreamStatus = init.upstreamStatus;
    this.retryable = init.retryable;
    this.retryAfterMs = init.retryAfterMs;
    this.kind = init.kind ?? 'http';
  }

  /** Cleans text set on the error after it was built (a message amended by a caller). */
  redact(): this {
    this.message = redactSecrets(this.message);
    return this;
  }
}

function clientStatusFor(init: ProviderErrorInit): number {
  if (init.kind === 'timeout') return 504;
  if (init.upstreamStatus === 0) return 502;
  // The provider rejected Patchbay's provider credential: that is the user's Patchbay setup,
  // not the caller's key, so do not answer 401 (the client would think its Patchbay key is wrong).
  if (init.upstreamStatus === 401) return 502;
  if (init.upstreamStatus >= 500) return init.upstreamStatus === 529 ? 503 : init.upstreamStatus;
  return init.upstreamStatus;
}

function defaultTypeFor(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** One failed (or successful) try of one endpoint, as reported in errors and usage rows. */
export interface AttemptReport {
  provider: string;
  model: string;
  status: number;
  error_type: string | null;
  message: string | null;
  latency_ms: number;
}

/** Every eligible endpoint failed (502), or none was eligible (503). */
export class AllProvidersFailedError extends PatchbayError {
  readonly attempts: AttemptReport[];
  constructor(message: string, attempts: AttemptReport[], status = 502, code = 'all_providers_failed', retryAfterMs?: number) {
    super(message, {
      status,
      type: status === 429 ? 'rate_limit_error' : 'server_error',
      code,
      extra: { attempts },
      headers: retryAfterMs === undefined ? undefined : { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
    });
    this.attempts = attempts;
  }
}
