import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProviderError } from '../../errors/provider-error.ts';
import { RequestCancel } from '../../providers/cancel-signal.ts';
import type { JsonReply, ProviderAdapter, StreamReply, UpstreamCall } from '../../providers/provider-adapter.ts';
import { describeRoute } from '../../routing/describe-route.ts';
import { parseFallbackHeader, parseStrategyHeader } from '../../routing/resolve-model.ts';
import { KeyLimiter } from '../../keys/key-limiter.ts';
import { ASSUMED_COMPLETION_TOKENS, type RoutePlan, type RouteRequest, type Router } from '../../routing/router.ts';
import { headerValue } from '../header-value.ts';
import type { IngressCodec } from '../../protocols/ingress-codec.ts';
import { openAiCodec } from '../../protocols/openai/openai-chat-codec.ts';
import { estimateAdmission, SINGLE_ANSWER, type FanOut } from './estimate-admission.ts';
import { elapsedMs, type V1Request } from './v1-request.ts';
import { Adjustments } from '../../protocols/neutral/adjustments.ts';

export interface RoutedOperation {
  /** The validated body, kept only when the content log is on. */
  body: unknown;
  route: Omit<RouteRequest, 'strategy' | 'fallbackModels' | 'stream' | 'allowedModels' | 'session' | 'sticky'>;
  /** The hash of the request's stable prefix, which names a session that the client did not (sticky routing). */
  affinity?: () => string | null;
  stream: boolean;
  includeUsage: boolean;
  /** How many generations the request can cost (estimate-admission.ts); one answer when absent. */
  fanOut?: FanOut;
  /** The caller's protocol: how stream items, the stream's end and errors are written (OpenAI's when absent). */
  codec?: IngressCodec;
  json(adapter: ProviderAdapter, call: UpstreamCall): Promise<JsonReply>;
  openStream?(adapter: ProviderAdapter, call: UpstreamCall, includeUsage: boolean): Promise<StreamReply>;
}

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

/** What /v1 handlers share: the router, the key limiter and the routing fee. */
export interface V1Context {
  router: Router;
  limiter: KeyLimiter;
  routingFeeUsd: number;
  /** Keep request and response content for debugging (usage.contentLog, off by default). */
  contentLog: boolean;
  /** A streaming client that takes nothing of its answer for this long is dropped. */
  clientStallTimeoutMs: number;
  /** The wire protocol a provider speaks (to find the endpoints that can answer a Messages call natively). */
  protocolOf(provider: string): string | undefined;
}

/**
 * Routes one operation and writes its answer: one JSON body, or an SSE stream that ends as the
 * operation's codec says (OpenAI's [DONE], Anthropic's message_stop) or with its error event.
 * One async function for the whole JSON path, and a plan made without a
 * promise when it can be: every async layer costs each request a promise and a microtask turn.
 */
export async function serveRouted(req: IncomingMessage, res: ServerResponse, ctx: V1Context, request: V1Request, operation: RoutedOperation): Promise<void> {
  request.requestedModel = operation.route.model;
  request.stream = operation.stream;
  if (ctx.contentLog) request.content = { request: JSON.stringify(operation.body), response: '' };
  // Listen for the client leaving before planning: planning may wait for the tokenizer to load.
  const abort = new RequestCancel();
  const onClose = () => {
    if (!res.writableFinished) abort.abort();
  };
  res.on('close', onClose);
  try {
    const { router } = ctx;
    const planned = router.plan({
      ...operation.route,
      stream: operation.stream,
      allowedModels: request.key?.allowedModels ?? null,
      strategy: parseStrategyHeader(req.headers['x-patchbay-strategy'] as string | undefined),
      fallbackModels: parseFallbackHeader(req.headers['x-patchbay-fallback'] as string | undefined),
      session: request.session.id,
      affinity: operation.affinity,
      sticky: parseStickyHeader(req.headers['x-patchbay-sticky']),
    });
    const plan = planned instanceof Promise ? await planned : planned;
    const key = request.key;
    if (key && KeyLimiter.isLimited(key)) {
      const outputTokens = operation.route.maxTokens ?? ASSUMED_COMPLETION_TOKENS;
      const estimate = estimateAdmission(plan.promptTokens, outputTokens, operation.fanOut ?? SINGLE_ANSWER, plan.candidates, ctx.routingFeeUsd);
      const admitted = ctx.limiter.admit(key, estimate, request.headers);
      request.admission = admitted instanceof Promise ? await admitted : admitted;
    }
    if (operation.stream && operation.openStream) {
      await serveStream(res, ctx, request, operation, plan, abort);
      return;
    }
    const reply = await router.execute(plan, request.trace, abort, false, (adapter, call) => operation.json(adapter, withAdjustments(request, call)));
    request.usage = reply.usage;
    request.trace.firstByteMs = elapsedMs(request);
    const headers = request.headers;
    headers['content-type'] = 'application/json';
    // A passed-through answer's length is not known yet: it goes chunked.
    if (!reply.rest) headers['content-length'] = String(reply.bytes ? reply.bytes.length : Buffer.byteLength(reply.body));
    headers['x-patchbay-provider'] = request.trace.endpoint!.provider;
    headers['x-patchbay-strategy'] = plan.strategy;
    headers['x-patchbay-route-reason'] = headerValue(describeRoute(request.trace) ?? plan.reason);
    headers['x-patchbay-latency-ms'] = String(request.trace.firstByteMs);
    addAdjustmentHeaders(headers, request.adjustments);
    if (reply.rest) {
      await passThrough(res, ctx, request, reply, abort);
      return;
    }
    res.writeHead(200, headers);
    res.end(reply.bytes ?? reply.body);
    if (request.content) request.content.response = reply.body;
  } finally {
    res.off('close', onClose);
  }
}

/** X-Patchbay-Sticky: off (or false, 0) lets the strategy pick as if the session were new; anything else keeps stickiness on. */
function parseStickyHeader(value: string | string[] | undefined): boolean {
  const text = (Array.isArray(value) ? value[0] : value)?.trim().toLowerCase();
  return !(text === 'off' || text === 'false' || text === '0' || text === 'no');
}

async function serveStream(res: ServerResponse, ctx: V1Context, request: V1Request, operation: RoutedOperation, plan: RoutePlan, signal: RequestCancel) {
  const { router } = ctx;
  const content = request.content;
  const codec = operation.codec ?? openAiCodec;
  let silence: NodeJS.Timeout | undefined;
  // False when the client is not taking what is written (backpressure): see waitForClient.
  const write = (chunk: string): boolean => {
    if (content) content.response += `${chunk}\n`;
    silence?.refresh();
    return res.write(codec.frame(chunk));
  };
  /** Whether the client took the first chunk at once (false: wait for it), and what writing it threw. */
  let firstTaken = true;
  let firstFailed = false;
  let firstFailure: unknown;
  // The first chunk is pulled inside the attempt: until it arrives, a failure can still fall back.
  // The head and the first chunk are written as soon as the attempt succeeded (onAnswer), before the
  // route's health and sticky bookkeeping: nothing but the write between the chunk and the client.
  const { reply } = await router.execute(
    plan,
    request.trace,
    signal,
    true,
    async (adapter, call) => {
      const opened = await operation.openStream!(adapter, withAdjustments(request, call), operation.includeUsage);
      return { reply: opened, first: await opened.chunks.next() };
    },
    ({ first }) => {
      request.trace.firstByteMs = elapsedMs(request);
      addAdjustmentHeaders(request.headers, request.adjustments);
      res.writeHead(200, {
        ...request.headers,
        ...SSE_HEADERS,
        'x-patchbay-provider': request.trace.endpoint!.provider,
        'x-patchbay-strategy': plan.strategy,
        'x-patchbay-route-reason': headerValue(describeRoute(request.trace) ?? plan.reason),
        // On a stream this is the time to the upstream's first chunk, not the whole answer.
        'x-patchbay-latency-ms': String(request.trace.firstByteMs),
      });
      silence = codec.keepAlive ? keepAliveTimer(res, codec.keepAlive) : undefined;
      if (first.done) return;
      try {
        // Sent now: Node corks the socket for a write and uncorks it in a nextTick, which would wait
        // for the route's bookkeeping and every promise turn queued behind this one. Only that cork
        // is undone (res.uncork() would also uncork the response itself, below zero).
        const socket = res.socket;
        const corked = socket?.writableCorked ?? 1;
        firstTaken = write(first.value);
        if (!corked && socket!.writableCorked) socket!.uncork();
      } catch (error) {
        // Handled below with the failures of the chunks after it (an error event, the usage row).
        firstFailed = true;
        firstFailure = error;
      }
    },
  );
  let stalled = false;
  try {
    // The next chunk is pulled from upstream only once the client took the previous ones: while it
    // does not, the upstream body fills its small queue and pauses the upstream socket.
    if (firstFailed) throw firstFailure;
    if (!firstTaken && (stalled = await waitForClient(res, ctx.clientStallTimeoutMs, signal))) throw signal.reason;
    for (let next = await reply.chunks.next(); !next.done; next = await reply.chunks.next()) {
      if (!write(next.value) && (stalled = await waitForClient(res, ctx.clientStallTimeoutMs, signal))) throw signal.reason;
    }
    res.end(codec.streamEnd);
  } catch (error) {
    request.status = signal.aborted ? 499 : 502;
    request.errorType = signal.aborted ? 'client_closed' : error instanceof ProviderError ? `stream_${error.type}` : 'stream_error';
    request.errorMessage = error instanceof Error ? error.message : String(error);
    request.trace.gate?.failAfterFirstByte(error, request.status, signal.aborted);
    if (!res.writableEnded) res.end(codec.streamError(error));
  } finally {
    clearTimeout(silence);
    request.usage = reply.usage();
    if (stalled) request.errorType = 'client_stalled';
  }
}

/**
 * Writes an answer passed through (JsonReply.rest): the head already read, then each piece as the
 * upstream sends it, the next pulled only once the client took the last (as serveStream does).
 * The headers are out, so a failure now cannot fall back, and a JSON body cannot carry an error:
 * the connection is cut (the client sees an incomplete answer), and the usage row records the
 * failure with the usage read so far.
 */
async function passThrough(res: ServerResponse, ctx: V1Context, request: V1Request, reply: JsonReply, signal: RequestCancel): Promise<void> {
  const rest = reply.rest!;
  const head = reply.bytes!;
  let sent = head.length;
  let stalled = false;
  try {
    res.writeHead(200, request.headers);
    if (!res.write(head) && (stalled = await waitForClient(res, ctx.clientStallTimeoutMs, signal))) throw signal.reason;
    for (let next = await rest.chunks.next(); !next.done; next = await rest.chunks.next()) {
      sent += next.value.length;
      if (!res.write(next.value) && (stalled = await waitForClient(res, ctx.clientStallTimeoutMs, signal))) throw signal.reason;
    }
    res.end();
  } catch (error) {
    request.status = signal.aborted ? 499 : 502;
    request.errorType = signal.aborted ? 'client_closed' : error instanceof ProviderError ? `answer_${error.type}` : 'answer_error';
    request.errorMessage = `${error instanceof Error ? error.message : String(error)} (after ${sent} bytes of the answer were sent)`;
    request.trace.gate?.failAfterFirstByte(error, request.status, signal.aborted);
    cutAfterFlush(res, ctx.clientStallTimeoutMs, signal.aborted);
    await rest.chunks.return?.(undefined);
  } finally {
    request.usage = rest.usage();
    if (stalled) request.errorType = 'client_stalled';
    // The content log keeps the head, not an answer of any size.
    if (request.content) request.content.response = `${head.toString('utf8')}… (${sent} bytes in all, passed through)`;
  }
}

/**
 * Ends a response that cannot be completed so that the client sees it cut: the connection is
 * closed without the body's last chunk marker. What was written still reaches a client that reads
 * (the socket is ended, which flushes, rather than destroyed); one that does not is dropped after
 * `stallMs`. A client already gone is just destroyed.
 */
function cutAfterFlush(res: ServerResponse, stallMs: number, gone: boolean): void {
  const socket = res.socket;
  if (gone || !socket || socket.destroyed) {
    res.destroy();
    return;
  }
  socket.end();
  setTimeout(() => socket.destroy(), stallMs).unref();
}

/**
 * The call for one attempt with its own adjustments record: each attempt starts empty (a fallback
 * endpoint has its own limits), and the request keeps the latest, which is the answering one.
 */
function withAdjustments(request: V1Request, call: UpstreamCall): UpstreamCall {
  const adjustments = new Adjustments();
  request.adjustments = adjustments;
  // The call is this request's own (built per endpoint by executeRoute), and an attempt is over before
  // the next starts: set on it, not on a copy of its ten fields per request.
  call.adjustments = adjustments;
  return call;
}

/** X-Patchbay-Dropped / X-Patchbay-Adjusted: what the answering attempt left out or changed, comma-separated. */
export function addAdjustmentHeaders(headers: Record<string, string>, adjustments: Adjustments | null): void {
  if (!adjustments) return;
  if (adjustments.dropped.length > 0) headers['x-patchbay-dropped'] = headerValue(adjustments.dropped.join(', '));
  if (adjustments.adjusted.length > 0) headers['x-patchbay-adjusted'] = headerValue(adjustments.adjusted.join(', '));
}

/** Writes the keep-alive item each time the stream has been silent for its interval; every write pushes it back (refresh). */
function keepAliveTimer(res: ServerResponse, keepAlive: NonNullable<IngressCodec['keepAlive']>): NodeJS.Timeout {
  const timer = setTimeout(() => {
    if (res.writableEnded || res.destroyed) return;
    res.write(keepAlive.item);
    timer.refresh();
  }, keepAlive.afterMs);
  timer.unref();
  return timer;
}

/**
 * Waits until the client has taken what is buffered for it ('drain'), or left. A client that does
 * not within `stallMs` is dropped: the request is cancelled (which aborts the upstream call) and
 * its socket destroyed, so a client that never reads holds neither memory nor an upstream call.
 * Resolves true when the client was dropped. Costs nothing unless a write found the buffer full.
 */
function waitForClient(res: ServerResponse, stallMs: number, signal: RequestCancel): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const done = (stalled: boolean) => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onDrain);
      resolve(stalled);
    };
    const onDrain = () => done(false);
    const timer = setTimeout(() => {
      signal.abort(new DOMException(`The client took nothing of its stream for ${stallMs} ms.`, 'AbortError'));
      res.destroy();
      done(true);
    }, stallMs);
    res.on('drain', onDrain);
    res.on('close', onDrain);
  });
}
