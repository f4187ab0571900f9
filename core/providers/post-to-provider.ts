import type { ProviderError } from '../errors/provider-error.ts';
import { authHeaders } from './auth-headers.ts';
import type { CancelSignal } from './cancel-signal.ts';
import type { UpstreamCall } from './provider-adapter.ts';
import { exhaustedUntil } from './read-rate-limit.ts';
import { sendUpstream, sendUpstreamForText, type PostOptions } from './send-upstream.ts';
import { answerTooLarge, toTransportError } from './transport-error.ts';
import { tryProviderKeys } from './try-provider-keys.ts';
import { getUpstreamAgent } from './upstream-agent.ts';
import { upstreamLimits } from './upstream-limits.ts';
import type { UpstreamResponse, UpstreamText } from './upstream-response.ts';

export type ErrorMapper = (provider: string, status: number, headers: UpstreamResponse['headers'], text: string) => ProviderError;

/**
 * POSTs a JSON body to one provider for one attempt: the protocol's auth header, the provider's
 * configured headers (which may add to or override the defaults), and an error status mapped by
 * the protocol's own error mapper.
 */
export function postToProvider(options: PostToProviderOptions): Promise<UpstreamResponse> {
  const { call } = options;
  return tryProviderKeys(call, async (apiKey, label) => {
    const response = await sendUpstream(upstreamRequest(options, apiKey));
    if (response.status >= 400) {
      const text = await readBodyText(call.provider.name, response, call.signal).catch(() => '');
      throw options.mapError(call.provider.name, response.status, response.headers, text);
    }
    noteRateLimit(call, response.headers, apiKey, label);
    return response;
  });
}

export interface PostToProviderOptions {
  call: UpstreamCall;
  url: string;
  /** An object to serialise, or a body already serialised (pass-through). */
  body: object | string;
  accept?: string;
  connectTimeoutMs: number;
  mapError: ErrorMapper;
  /** Headers of the caller's to forward (Anthropic's version and betas on pass-through); the provider's configured headers still win. */
  forwardHeaders?: Record<string, string>;
}

/** The request for one attempt with one key: the protocol's auth header, then the provider's configured headers (which may override). */
function upstreamRequest(options: Omit<PostToProviderOptions, 'mapError'>, apiKey: string | undefined): PostOptions {
  const { call } = options;
  const shared = requestHeaders(call.provider, apiKey, options.accept ?? 'application/json');
  const headers = options.forwardHeaders ? { ...shared, ...options.forwardHeaders, ...call.provider.headers } : shared;
  return {
    provider: call.provider.name,
    url: options.url,
    // The attempt's traceparent: the upstream's spans continue this request's trace.
    headers: call.traceHeaders ? { ...headers, ...call.traceHeaders } : headers,
    body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    signal: call.signal,
    timeoutMs: call.firstByteTimeoutMs,
    dispatcher: getUpstreamAgent(options.connectTimeoutMs),
  };
}

/** Each provider's request headers per secret and accept type, built once (undici only reads them). */
const headerSets = new WeakMap<UpstreamCall['provider'], Map<string | undefined, Map<string, Record<string, string>>>>();
/** Secrets per provider whose headers are kept: a provider has a handful of keys; keys set again leave old entries behind. */
const MAX_HEADER_SECRETS = 16;

function requestHeaders(provider: UpstreamCall['provider'], apiKey: string | undefined, accept: string): Record<string, string> {
  let bySecret = headerSets.get(provider);
  if (!bySecret) {
    bySecret = new Map();
    headerSets.set(provider, bySecret);
  }
  let byAccept = bySecret.get(apiKey);
  if (!byAccept) {
    if (bySecret.size >= MAX_HEADER_SECRETS) bySecret.clear();
    byAccept = new Map();
    bySecret.set(apiKey, byAccept);
  }
  let headers = byAccept.get(accept);
  if (!headers) {
    headers = Object.freeze({ 'content-type': 'application/json', accept, ...authHeaders(provider.protocol, apiKey), ...provider.headers });
    byAccept.set(accept, headers);
  }
  return headers;
}

/**
 * A provider announcing that a limit is used up: that key rests until the reset, and routing
 * skips the endpoint until then only when no other key of the provider is free.
 */
function noteRateLimit(call: UpstreamCall, headers: UpstreamResponse['headers'], apiKey: string | undefined, label: string | null): void {
  if (!call.onRateLimitExhausted && !call.keys) return;
  const until = exhaustedUntil(headers);
  if (until === null) return;
  if (call.keys && label !== null && apiKey !== undefined) {
    call.keys.rest({ label, secret: apiKey }, { status: 429, message: 'its rate-limit headers say the window is used up', untilMs: until });
    const allResting = call.keys.allRestingUntil();
    if (allResting !== null) call.onRateLimitExhausted?.(allResting);
    return;
  }
  call.onRateLimitExhausted?.(until);
}

/**
 * postToProvider for a non-streaming call: the whole answer (as text and as bytes), or the
 * provider's error mapped. With `passThroughAfter`, a 2xx answer larger than that many bytes comes
 * back as its head and `rest` (see UpstreamText); an error status is always read whole.
 */
export function postToProviderForText(options: PostToProviderOptions & { passThroughAfter?: number }): Promise<UpstreamText> {
  const { call } = options;
  return tryProviderKeys(call, (apiKey, label) =>
    sendUpstreamForText(upstreamRequest(options, apiKey), options.passThroughAfter, (response) => {
      if (response.status >= 400) throw options.mapError(call.provider.name, response.status, response.headers, response.text);
      noteRateLimit(call, response.headers, apiKey, label);
      return response;
    }),
  );
}

/** Reads the whole body as text, up to the answer size limit; a connection dropped while reading is a retryable network error. */
async function readBodyText(provider: string, response: UpstreamResponse, signal?: CancelSignal): Promise<string> {
  try {
    return await response.body.text(upstreamLimits.maxAnswerBytes, (limit) => answerTooLarge(provider, limit));
  } catch (error) {
    throw toTransportError(provider, error, signal);
  }
}
