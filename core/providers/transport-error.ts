import { undiciErrors } from './undici-agent.ts';
import { ProviderError } from '../errors/provider-error.ts';
import type { CancelSignal } from './cancel-signal.ts';
import { formatBytes } from './upstream-limits.ts';

/** Maps an undici failure to a ProviderError by its class and code, never by its message. */
export function toTransportError(provider: string, error: unknown, signal?: CancelSignal): ProviderError {
  if (error instanceof ProviderError) return error;
  if (signal?.aborted) {
    return new ProviderError({ provider, upstreamStatus: 0, message: 'request cancelled by the client', retryable: false, kind: 'network', type: 'cancelled' });
  }
  if (
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    error instanceof undiciErrors.ConnectTimeoutError
  ) {
    const what = error instanceof undiciErrors.ConnectTimeoutError ? 'connecting' : 'waiting for a response';
    return new ProviderError({ provider, upstreamStatus: 0, message: `timed out ${what}`, retryable: true, kind: 'timeout', type: 'timeout' });
  }
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  return new ProviderError({
    provider,
    upstreamStatus: 0,
    message: `could not reach the provider (${code ?? (error as Error).name ?? 'network error'})`,
    retryable: true,
    kind: 'network',
    type: 'network_error',
  });
}

/**
 * An answer past Patchbay's size limit. Retryable like a connection dropped mid-answer: it is the
 * upstream's failure (a runaway or broken server), and another provider may answer normally.
 */
export function answerTooLarge(provider: string, limit: number): ProviderError {
  return new ProviderError({
    provider,
    upstreamStatus: 0,
    message: `the answer was larger than ${formatBytes(limit)}, Patchbay's limit for one upstream answer; it was cut. Ask for less (fewer inputs or a smaller max_tokens) or check the provider's server`,
    retryable: true,
    kind: 'network',
    code: 'upstream_answer_too_large',
  });
}
