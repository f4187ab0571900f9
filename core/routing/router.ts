import type { Capability, Catalog, Endpoint } from '../catalog/load-catalog.ts';
import type { Strategy } from '../config/config-schema.ts';
import type { PatchbayConfig, ResolvedProvider } from '../config/load-config.ts';
import { InvalidRequestError } from '../errors/patchbay-error.ts';
import { AllProvidersFailedError, ProviderError } from '../errors/provider-error.ts';
import type { ProviderAdapter, UpstreamCall } from '../providers/provider-adapter.ts';
import type { SecretStore } from '../secrets/secret-store.ts';
import { resolveModel } from './resolve-model.ts';
import type { RouteTrace } from './route-trace.ts';

export type Operation = 'chat' | 'completions' | 'embeddings';

const OPERATION_PATH: Record<Operation, string> = { chat: '/v1/chat/completions', completions: '/v1/completions', embeddings: '/v1/embeddings' };

export interface RouteRequest {
  operation: Operation;
  model: string;
  /** Capabilities the request needs beyond the operation itself, with the parameter that needs each. */
  needs: { capability: Capability; param: string }[];
  strategy: Strategy | undefined;
  fallbackModels: string[];
}

export interface RoutePlan {
  strategy: Strategy;
  pinned: boolean;
  candidates: Endpoint[];
}

export interface RouterDeps {
  catalog: Catalog;
  config: PatchbayConfig;
  secrets: SecretStore;
  adapters: Partial<Record<ResolvedProvider['protocol'], ProviderAdapter>>;
}

/**
 * Resolves a request to ordered candidate endpoints and tries them in turn. Fallback happens only
 * here, and only before the attempt function returns: a stream's first chunk is pulled inside the
 * attempt, so once this returns, the answer is committed to the client.
 */
export class Router {
  private readonly deps: RouterDeps;

  constructor(deps: RouterDeps) {
    this.deps = deps;
  }

  plan(request: RouteRequest): RoutePlan {
    const { catalog, config } = this.deps;
    const primary = resolveModel(request.model, catalog, config.providers);
    const strategy = request.strategy ?? primary.strategy ?? config.strategy;
    const endpoints = [...primary.endpoints];
    for (const [index, model] of request.fallbackModels.entries()) {
      const extra = resolveModel(model, catalog, config.providers, `X-Patchbay-Fallback[${index}]`);
      for (const endpoint of extra.endpoints) if (!endpoints.some((e) => e.id === endpoint.id)) endpoints.push(endpoint);
    }

    const capable = this.filterCapable(endpoints, request);
    const reasons: string[] = [];
    const candidates = capable.filter((endpoint) => {
      const provider = config.providers.get(endpoint.provider)!;
      if (!provider.enabled) {
        reasons.push(`${provider.name} is disabled in the config`);
        return false;
      }
      if (!this.deps.adapters[provider.protocol]) {
        reasons.push(`${provider.name} speaks the ${provider.protocol} protocol, which this build of Patchbay cannot translate yet`);
        return false;
      }
      if (provider.requiresKey && !this.deps.secrets.get(provider)) {
        reasons.push(`${provider.name} has no API key (${this.deps.secrets.describeSource(provider)})`);
        return false;
      }
      return true;
    });
    if (candidates.length === 0) {
      throw new AllProvidersFailedError(
        `No provider can serve "${request.model}" right now: ${[...new Set(reasons)].join('; ')}.`,
        [],
        503,
        'no_eligible_provider',
      );
    }
    return { strategy, pinned: primary.pinned && request.fallbackModels.length === 0, candidates };
  }

  /** Drops endpoints that cannot do what the request asks; if none can, the client asked for the impossible: 400. */
  private filterCapable(endpoints: Endpoint[], request: RouteRequest): Endpoint[] {
    const supportsOperation = endpoints.filter((e) => e.capabilities.has(request.operation));
    if (supportsOperation.length === 0) {
      throw new InvalidRequestError(
        `The model "${request.model}" cannot be used with ${OPERATION_PATH[request.operation]}; GET /v1/models shows each model's capabilities.`,
        'model',
        'model_not_supported',
      );
    }
    let capable = supportsOperation;
    for (const need of request.needs) {
      const next = capable.filter((e) => e.capabilities.has(need.capability));
      if (next.length === 0) {
        throw new InvalidRequestError(
          `The model "${request.model}" does not support '${need.param}' (${need.capability}); choose a model whose capabilities include it.`,
          need.param,
          'unsupported_parameter',
        );
      }
      capable = next;
    }
    return capable;
  }

  /** Tries the candidates in order until one answers; records every attempt in the trace. */
  async execute<T>(plan: RoutePlan, trace: RouteTrace, signal: AbortSignal, attempt: (adapter: ProviderAdapter, call: UpstreamCall) => Promise<T>): Promise<T> {
    const { config, secrets, adapters } = this.deps;
    trace.strategy = plan.strategy;
    let lastError: ProviderError | undefined;
    for (const endpoint of plan.candidates) {
      if (signal.aborted) break;
      const provider = config.providers.get(endpoint.provider)!;
      trace.endpoint = endpoint;
      const started = performance.now();
      try {
        const value = await attempt(adapters[provider.protocol]!, {
          endpoint,
          provider,
          apiKey: secrets.get(provider),
          signal,
          firstByteTimeoutMs: config.firstByteTimeoutMs,
        });
        trace.attempts.push({ provider: provider.name, model: endpoint.model, status: 200, error_type: null, message: null, latency_ms: round(performance.now() - started) });
        return value;
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        trace.attempts.push({
          provider: provider.name,
          model: endpoint.model,
          status: error.upstreamStatus || error.status,
          error_type: error.type,
          message: error.message,
          latency_ms: round(performance.now() - started),
        });
        lastError = error;
        if (!error.retryable) throw error;
      }
    }
    throw new AllProvidersFailedError(
      `All ${trace.attempts.length} provider attempt(s) failed${lastError ? `; the last: ${lastError.message}` : ''}. See "attempts" for each.`,
      trace.attempts,
    );
  }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
