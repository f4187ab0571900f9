import { ProviderError } from '../../errors/provider-error.ts';

interface StreamFailureShape {
  error?: unknown;
  x_groq?: { error?: unknown };
}

/**
 * Parses one upstream data payload. A failure reported inside the stream becomes a ProviderError:
 * OpenAI's `{"error":{...}}` event (§1.4) and Groq's `x_groq.error`, set when Groq stops a stream
 * early (§4.4), so the client sees an error event instead of a stream that merely stops.
 */
export function parseStreamData<T extends object>(provider: string, data: string): T {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw streamError(provider, 'sent a stream event that is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null) throw streamError(provider, 'sent a stream event that is not a JSON object');
  const failure = parsed as StreamFailureShape;
  if (failure.error) {
    const error = failure.error as { message?: unknown; type?: unknown };
    const message = typeof failure.error === 'string' ? failure.error : typeof error.message === 'string' ? error.message : undefined;
    throw streamError(provider, message ?? 'sent an error in the stream', typeof error.type === 'string' ? error.type : undefined);
  }
  if (failure.x_groq?.error) throw streamError(provider, String(failure.x_groq.error));
  return parsed as T;
}

/** A failure after the stream started: the client already has a 200, so it travels as an error event. */
export function streamError(provider: string, message: string, type?: string): ProviderError {
  return new ProviderError({ provider, upstreamStatus: 502, message, type, retryable: true, kind: 'stream' });
}
