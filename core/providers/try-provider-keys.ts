import { ProviderError } from '../errors/provider-error.ts';
import { DEFAULT_KEY_REST_MS, type KeyFailure, type ProviderKey } from '../secrets/key-ring.ts';
import type { UpstreamCall } from './provider-adapter.ts';

/**
 * One attempt at one provider, trying its keys: a 429, a quota error or a 401 on one key sends
 * the same request with the provider's next key, and that key rests for its retry window (or
 * until it is set again, for a 401). Only when every key failed does the attempt fail, and the
 * router may then fall back to another provider. `send` resolves once the upstream accepted the
 * request (a stream's headers), so a stream changes key only before its first byte.
 *
 * Any other failure (a 400, a 5xx, a timeout) is the request's or the provider's, not the key's:
 * it ends the attempt at once, as with a single key.
 */
export function tryProviderKeys<T>(call: UpstreamCall, send: (apiKey: string | undefined, label: string | null) => Promise<T>): Promise<T> {
  try {
    const ring = call.keys;
    const keys = ring?.order() ?? [];
    if (!ring || keys.length === 0) {
      call.onKey?.(null);
      return send(call.apiKey, null);
    }
    if (keys.length === 1) return tryOneKey(call, ring, keys[0], send);
    return tryEachKey(call, ring, keys, send);
  } catch (error) {
    // As from an async function: a failure is a rejection, never a throw.
    return Promise.reject(error);
  }
}

/**
 * A provider with one usable key (the common case): the same outcome as the loop below, without
 * an async function's frame and promise per request.
 */
function tryOneKey<T>(call: UpstreamCall, ring: NonNullable<UpstreamCall['keys']>, key: ProviderKey, send: (apiKey: string | undefined, label: string | null) => Promise<T>): Promise<T> {
  call.onKey?.(key.label);
  return send(key.secret, key.label).then(
    (answer) => {
      ring.served(key);
      return answer;
    },
    (error: unknown) => {
      const failure = error instanceof ProviderError && !call.signal.aborted ? keyFailure(error) : null;
      if (failure) ring.rest(key, failure);
      throw error;
    },
  );
}

async function tryEachKey<T>(call: UpstreamCall, ring: NonNullable<UpstreamCall['keys']>, keys: ProviderKey[], send: (apiKey: string | undefined, label: string | null) => Promise<T>): Promise<T> {
  const failures: ProviderError[] = [];
  for (const key of keys) {
    call.onKey?.(key.label);
    try {
      const answer = await send(key.secret, key.label);
      ring.served(key);
      return answer;
    } catch (error) {
      const failure = error instanceof ProviderError && !call.signal.aborted ? keyFailure(error) : null;
      if (!failure) throw error;
      ring.rest(key, failure);
      failures.push(error as ProviderError);
    }
  }
  throw mostRecoverable(failures);
}

/** Whether the error is about the key (another key of the provider may succeed), and how long the key rests. */
export function keyFailure(error: ProviderError, now = Date.now()): KeyFailure | null {
  const status = error.upstreamStatus;
  const quota = error.code === 'insufficient_quota' || error.type === 'insufficient_quota';
  if (status === 401) return { status, message: error.message, untilMs: Number.POSITIVE_INFINITY };
  if (status === 429 || status === 402 || quota) return { status, message: error.message, untilMs: now + (error.retryAfterMs ?? DEFAULT_KEY_REST_MS) };
  return null;
}

/**
 * What the router sees when every key failed: a rate limit if any key was rate limited (the
 * router falls back, or waits out the shortest window), else the last key's answer.
 */
function mostRecoverable(failures: ProviderError[]): ProviderError {
  const limited = failures.filter((f) => f.upstreamStatus === 429);
  if (limited.length === 0) return failures[failures.length - 1];
  const timed = limited.filter((f) => f.retryAfterMs !== undefined);
  if (timed.length === 0) return limited[limited.length - 1];
  return timed.reduce((a, b) => (b.retryAfterMs! < a.retryAfterMs! ? b : a));
}
