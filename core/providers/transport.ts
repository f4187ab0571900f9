import type { Dispatcher } from 'undici';
import { Agent, undiciErrors } from './undici-agent.ts';
import { ProviderError } from '../errors/provider-error.ts';
import { authHeaders } from './auth-headers.ts';
import { tryProviderKeys } from './try-provider-keys.ts';
import { exhaustedUntil } from './read-rate-limit.ts';
import type { CancelSignal } from './cancel-signal.ts';
import type { UpstreamCall } from './provider-adapter.ts';
import { DispatchedBody, type UpstreamBody } from './upstream-body.ts';
import { formatBytes, upstreamLimits } from './upstream-limits.ts';

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: UpstreamBody;
}

let sharedAgent: Agent | undefined;
let sharedConnectTimeout = 0;

/** One keep-alive connection pool for all upstreams; connections are reused across requests. */
export function getUpstreamAgent(connectTimeoutMs: number): Agent {
  if (!sharedAgent || sharedConnectTimeout !== connectTimeoutMs) {
    sharedAgent = new Agent({ connect: { timeout: connectTimeoutMs }, keepAliveTimeout: 30_000, connections: 256, pipelining: 1 });
    sharedConnectTimeout = connectTimeoutMs;
  }
  return sharedAgent;
}

export interface PostOptions {
  provider: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: CancelSignal;
  timeoutMs: number;
  dispatcher: Dispatcher;
  method?: 'POST' | 'GET';
}

/** What one upstream call reports, in order: its controller, the status and headers, body chunks, then the end or one (already mapped) error. */
interface UpstreamSink {
  onController?(controller: Dispatcher.DispatchController): void;
  onStart(status: number, headers: UpstreamResponse['headers']): void;
  onData(chunk: Buffer): void;
  onEnd(): void;
  onError(error: ProviderError): void;
}

/**
 * Sends one request through undici's dispatch API (no Readable, no promise per call): the caller's
 * cancellation aborts it, and every failure (network, timeout, cancellation) reaches the sink as a
 * ProviderError from toTransportError. The one place both kinds of upstream call are sent.
 */
function dispatchUpstream(options: PostOptions, sink: UpstreamSink): void {
  const { signal } = options;
  let controller: Dispatcher.DispatchController | null = null;
  const onAbort = () => controller?.abort(signal.reason as Error);
  const settle = () => signal.removeEventListener('abort', onAbort);
  const fail = (error: unknown) => {
    settle();
    sink.onError(toTransportError(options.provider, error, signal));
  };
  if (signal.aborted) {
    fail(signal.reason);
    return;
  }
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    options.dispatcher.dispatch(dispatchOptions(options), {
      onRequestStart(started) {
        controller = started;
        sink.onController?.(started);
        if (signal.aborted) started.abort(signal.reason as Error);
      },
      onResponseStart(_controller, statusCode, headers) {
        if (statusCode >= 200) sink.onStart(statusCode, headers as UpstreamResponse['headers']);
      },
      onResponseData(_controller, chunk) {
        sink.onData(chunk);
      },
      onResponseEnd() {
        settle();
        sink.onEnd();
      },
      onResponseError(_controller, error) {
        fail(error);
      },
    });
  } catch (error) {
    fail(error);
  }
}

/**
 * Sends one request upstream and resolves with the status and headers as soon as they arrive; the
 * body follows as it streams (a DispatchedBody). Network failures and timeouts become retryable
 * ProviderErrors, before the headers and while the body is read; HTTP statuses are returned.
 */
export function sendUpstream(options: PostOptions): Promise<UpstreamResponse> {
  return new Promise<UpstreamResponse>((resolve, reject) => {
    const body = new DispatchedBody();
    let started = false;
    dispatchUpstream(options, {
      onController: (controller) => (body.controller = controller),
      onStart(status, headers) {
        started = true;
        resolve({ status, headers, body });
      },
      onData: (chunk) => body.push(chunk),
      onEnd: () => body.end(),
      onError: (error) => (started ? body.fail(error) : reject(error)),
    });
  });
}

/** A whole upstream answer, already read: what every non-streaming call needs. */
export interface UpstreamText {
  status: number;
  headers: UpstreamResponse['headers'];
  text: string;
  /** The same answer as the bytes that arrived: sent on to the client as they are when nothing in it changes. */
  bytes: Buffer;
  /**
   * Set when the call allowed pass-through (`passThroughAfter`) and a 2xx answer went past it:
   * `bytes` is then only the answer's head (`text` is empty) and the rest arrives here, unlimited,
   * read at the pace of whoever reads it.
   */
  rest?: DispatchedBody;
}

/**
 * Sends one request and reads the whole answer. A non-streaming answer is read whole anyway, so
 * nothing is built for a streamed body: measurably cheaper per request than request() with text().
 * An answer larger than upstreamLimits.maxAnswerBytes is cut there (the upstream call aborted, what
 * was read dropped): an upstream that never ends its answer would otherwise fill the memory.
 */
export function sendUpstreamForText(options: PostOptions, passThroughAfter = Infinity, accept?: (answer: UpstreamText) => UpstreamText): Promise<UpstreamText> {
  return new Promise<UpstreamText>((settle, reject) => {
    // `accept` (a status check) runs before the promise settles: no second promise and turn for it.
    const resolve = (answer: UpstreamText) => {
      if (!accept) return settle(answer);
      try {
        settle(accept(answer));
      } catch (error) {
        reject(error);
      }
    };
    let status = 0;
    let headers: UpstreamResponse['headers'] = {};
    let parts: Buffer[] = [];
    let size = 0;
    let cut = false;
    const limit = upstreamLimits.maxAnswerBytes;
    let controller: Dispatcher.DispatchController | null = null;
    let rest: DispatchedBody | null = null;
    dispatchUpstream(options, {
      onController: (started) => (controller = started),
      onStart(statusCode, responseHeaders) {
        status = statusCode;
        headers = responseHeaders;
      },
      onData(chunk) {
        if (rest) return rest.push(chunk);
        size += chunk.length;
        if (size > passThroughAfter && status < 300) {
          // Past the head: what follows is handed on as it arrives, with the body's backpressure.
          parts.push(chunk);
          rest = new DispatchedBody();
          rest.controller = controller;
          const head = parts.length === 1 ? parts[0] : Buffer.concat(parts);
          parts = [];
          return resolve({ status, headers, text: '', bytes: head, rest });
        }
        if (size <= limit) parts.push(chunk);
        else if (!cut) {
          cut = true;
          parts = [];
          controller?.abort(answerTooLarge(options.provider, limit));
        }
      },
      onEnd() {
        if (rest) return rest.end();
        const bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts);
        resolve({ status, headers, text: bytes.toString('utf8'), bytes });
      },
      onError: (error) => (rest ? rest.fail(error) : reject(error)),
    });
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

/** What undici needs for one request, whichever API sends it. */
function dispatchOptions(options: PostOptions): Dispatcher.DispatchOptions {
  const { origin, path } = splitUrl(options.url);
  return {
    origin,
    path,
    method: options.method ?? 'POST',
    headers: options.headers,
    body: options.method === 'GET' ? undefined : options.body,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  };
}

const splitUrls = new Map<string, { origin: string; path: string }>();

/** Origin and path of an upstream URL, parsed once: a provider has only a handful of distinct URLs. */
function splitUrl(url: string): { origin: string; path: string } {
  let split = splitUrls.get(url);
  if (!split) {
    const parsed = new URL(url);
    split = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (splitUrls.size < 1000) splitUrls.set(url, split);
  }
  return split;
}

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

/** Reads the whole body as text, up to the answer size limit; a connection dropped while reading is a retryable network error. */
export async function readBodyText(provider: string, response: UpstreamResponse, signal?: CancelSignal): Promise<string> {
  try {
    return await response.body.text(upstreamLimits.maxAnswerBytes, (limit) => answerTooLarge(provider, limit));
  } catch (error) {
    throw toTransportError(provider, error, signal);
  }
}

/** Parses retry-after-ms / retry-after (seconds or HTTP date) into milliseconds. */
export function parseRetryAfter(headers: UpstreamResponse['headers'], now = Date.now()): number | undefined {
  const ms = headerValue(headers, 'retry-after-ms');
  if (ms !== undefined && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headerValue(headers, 'retry-after');
  if (value === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export function headerValue(headers: UpstreamResponse['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

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
  const headers = requestHeaders(call.provider, apiKey, options.accept ?? 'application/json');
  return {
    provider: call.provider.name,
    url: options.url,
    headers: options.forwardHeaders ? { ...headers, ...options.forwardHeaders, ...call.provider.headers } : headers,
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
