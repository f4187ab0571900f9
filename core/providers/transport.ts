import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import { ProviderError } from '../errors/provider-error.ts';
import { authHeaders } from './auth-headers.ts';
import { exhaustedUntil } from './read-rate-limit.ts';
import type { UpstreamCall } from './provider-adapter.ts';

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: UpstreamBody;
}

/** A streamed answer's body: its chunks as they arrive, or all of it as text. */
export interface UpstreamBody extends AsyncIterable<Buffer> {
  text(): Promise<string>;
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
  signal: AbortSignal;
  timeoutMs: number;
  dispatcher: Dispatcher;
  method?: 'POST' | 'GET';
}

interface DispatchEvents {
  /** The status line and headers arrived (not called for 1xx). */
  start(controller: Dispatcher.DispatchController, status: number, headers: UpstreamResponse['headers']): void;
  data(chunk: Buffer): void;
  end(): void;
  /** Connection failure, timeout, abort: the raw error (callers map it with toTransportError). */
  error(error: unknown): void;
}

/**
 * One request through undici's dispatch API, with the caller's AbortSignal wired to it. Both
 * readers below sit on it: it skips what `request()` builds per call (a Readable, an async-resource
 * scope, its consumers), which a router pays on every request.
 */
function dispatchUpstream(options: PostOptions, events: DispatchEvents): void {
  const { signal } = options;
  let controller: Dispatcher.DispatchController | null = null;
  let settled = false;
  const onAbort = () => controller?.abort(signal.reason);
  const settle = () => {
    settled = true;
    signal.removeEventListener('abort', onAbort);
  };
  if (signal.aborted) {
    events.error(signal.reason);
    return;
  }
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const { origin, path } = splitUrl(options.url);
    options.dispatcher.dispatch(
      {
        origin,
        path,
        method: options.method ?? 'POST',
        headers: options.headers,
        body: options.method === 'GET' ? undefined : options.body,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
      },
      {
        onRequestStart(started) {
          controller = started;
          if (signal.aborted) started.abort(signal.reason);
        },
        onResponseStart(started, statusCode, headers) {
          if (statusCode >= 200) events.start(started, statusCode, headers as UpstreamResponse['headers']);
        },
        onResponseData(_controller, chunk) {
          events.data(chunk);
        },
        onResponseEnd() {
          settle();
          events.end();
        },
        onResponseError(_controller, error) {
          if (settled) return;
          settle();
          events.error(error);
        },
      },
    );
  } catch (error) {
    settle();
    events.error(error);
  }
}

/** Sends one request upstream; resolves at the headers with the body still arriving. Failures before the headers become ProviderErrors. */
export function sendUpstream(options: PostOptions): Promise<UpstreamResponse> {
  return new Promise<UpstreamResponse>((resolve, reject) => {
    const body = new PushedBody();
    let started = false;
    dispatchUpstream(options, {
      start(controller, status, headers) {
        started = true;
        body.controller = controller;
        resolve({ status, headers, body });
      },
      data: (chunk) => body.push(chunk),
      end: () => body.end(),
      error(error) {
        if (started) body.fail(error);
        else reject(toTransportError(options.provider, error, options.signal));
      },
    });
  });
}

/**
 * A body fed by the dispatch handler and read by one consumer, in order. Reading pauses the
 * socket when chunks pile up; a consumer that stops early (breaks out of its loop) cancels the
 * request, as destroying a Readable would.
 */
class PushedBody implements UpstreamBody {
  controller: Dispatcher.DispatchController | null = null;
  private readonly chunks: Buffer[] = [];
  private done = false;
  private failure: { error: unknown } | null = null;
  private wake: (() => void) | null = null;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    if (this.chunks.length >= 16) this.controller?.pause();
    this.notify();
  }

  end(): void {
    this.done = true;
    this.notify();
  }

  fail(error: unknown): void {
    this.failure = { error };
    this.done = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const chunk = this.chunks.shift();
        if (chunk) {
          if (this.chunks.length === 0 && this.controller?.paused) this.controller.resume();
          yield chunk;
        } else if (this.failure) {
          throw this.failure.error;
        } else if (this.done) {
          return;
        } else {
          await new Promise<void>((resolve) => (this.wake = resolve));
        }
      }
    } finally {
      if (!this.done) this.controller?.abort(new Error('the reader stopped before the end of the body'));
    }
  }

  async text(): Promise<string> {
    const parts: Buffer[] = [];
    for await (const part of this) parts.push(part);
    return Buffer.concat(parts).toString('utf8');
  }
}

/** A whole upstream answer, already read: what every non-streaming call needs. */
export interface UpstreamText {
  status: number;
  headers: UpstreamResponse['headers'];
  text: string;
}

/** Sends one request and reads the whole answer (non-streaming calls): no body object at all. */
export function sendUpstreamForText(options: PostOptions): Promise<UpstreamText> {
  return new Promise<UpstreamText>((resolve, reject) => {
    let status = 0;
    let headers: UpstreamResponse['headers'] = {};
    const parts: Buffer[] = [];
    dispatchUpstream(options, {
      start(_controller, statusCode, responseHeaders) {
        status = statusCode;
        headers = responseHeaders;
      },
      data: (chunk) => parts.push(chunk),
      end: () => resolve({ status, headers, text: parts.length === 1 ? parts[0].toString('utf8') : Buffer.concat(parts).toString('utf8') }),
      error: (error) => reject(toTransportError(options.provider, error, options.signal)),
    });
  });
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
export function toTransportError(provider: string, error: unknown, signal?: AbortSignal): ProviderError {
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

/** Reads the whole body as text; a connection dropped while reading is a retryable network error. */
export async function readBodyText(provider: string, response: UpstreamResponse, signal?: AbortSignal): Promise<string> {
  try {
    return await response.body.text();
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
export async function postToProvider(options: { call: UpstreamCall; url: string; body: object; accept?: string; connectTimeoutMs: number; mapError: ErrorMapper }): Promise<UpstreamResponse> {
  const { call } = options;
  const response = await sendUpstream(upstreamRequest(options));
  if (response.status >= 400) {
    const text = await readBodyText(call.provider.name, response, call.signal).catch(() => '');
    throw options.mapError(call.provider.name, response.status, response.headers, text);
  }
  noteRateLimit(call, response.headers);
  return response;
}

/** The request for one attempt: the protocol's auth header, then the provider's configured headers (which may override). */
function upstreamRequest(options: { call: UpstreamCall; url: string; body: object; accept?: string; connectTimeoutMs: number }): PostOptions {
  const { call } = options;
  return {
    provider: call.provider.name,
    url: options.url,
    headers: { 'content-type': 'application/json', accept: options.accept ?? 'application/json', ...authHeaders(call.provider.protocol, call.apiKey), ...call.provider.headers },
    body: JSON.stringify(options.body),
    signal: call.signal,
    timeoutMs: call.firstByteTimeoutMs,
    dispatcher: getUpstreamAgent(options.connectTimeoutMs),
  };
}

/** A provider announcing that a limit is used up: routing skips the endpoint until the reset. */
function noteRateLimit(call: UpstreamCall, headers: UpstreamResponse['headers']): void {
  if (!call.onRateLimitExhausted) return;
  const until = exhaustedUntil(headers);
  if (until !== null) call.onRateLimitExhausted(until);
}

/** postToProvider for a non-streaming call: the whole answer as text, or the provider's error mapped. */
export async function postToProviderForText(options: { call: UpstreamCall; url: string; body: object; connectTimeoutMs: number; mapError: ErrorMapper }): Promise<string> {
  const { call } = options;
  const response = await sendUpstreamForText(upstreamRequest(options));
  if (response.status >= 400) throw options.mapError(call.provider.name, response.status, response.headers, response.text);
  noteRateLimit(call, response.headers);
  return response.text;
}
