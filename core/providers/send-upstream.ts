import type { Dispatcher } from 'undici';
import type { ProviderError } from '../errors/provider-error.ts';
import type { CancelSignal } from './cancel-signal.ts';
import { answerTooLarge, toTransportError } from './transport-error.ts';
import { redactAnswer } from './scan-secrets.ts';
import { DispatchedBody } from './upstream-body.ts';
import { upstreamLimits } from './upstream-limits.ts';
import type { UpstreamResponse, UpstreamText } from './upstream-response.ts';

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
        // A provider key an answer quotes never reaches anyone: redacted before it is read (scan-secrets.ts).
        const bytes = redactAnswer(parts.length === 1 ? parts[0] : Buffer.concat(parts));
        resolve({ status, headers, text: bytes.toString('utf8'), bytes });
      },
      onError: (error) => (rest ? rest.fail(error) : reject(error)),
    });
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
