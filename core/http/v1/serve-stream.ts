import type { ServerResponse } from 'node:http';
import { ProviderError } from '../../errors/provider-error.ts';
import type { IngressCodec } from '../../protocols/ingress-codec.ts';
import { openAiCodec } from '../../protocols/openai/openai-chat-codec.ts';
import type { RequestCancel } from '../../providers/cancel-signal.ts';
import type { RoutePlan } from '../../routing/router.ts';
import { headerValue } from '../header-value.ts';
import { addAdjustmentHeaders } from './add-adjustment-headers.ts';
import type { RoutedOperation } from './routed-operation.ts';
import type { V1Context } from './v1-context.ts';
import { elapsedMs, type V1Request } from './v1-request.ts';
import { waitForClient } from './wait-for-client.ts';

const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

/**
 * Executes a streamed operation and writes its SSE stream, which ends as the operation's codec
 * says (OpenAI's [DONE], Anthropic's message_stop) or with its error event.
 */
export async function serveStream(res: ServerResponse, ctx: V1Context, request: V1Request, operation: RoutedOperation, plan: RoutePlan, signal: RequestCancel) {
  const content = request.content;
  const trace = request.trace;
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
  const { reply } = await ctx.router.execute(
    plan,
    trace,
    signal,
    true,
    async (adapter, call) => {
      const opened = await operation.openStream!(adapter, call, operation.includeUsage);
      return { reply: opened, first: await opened.chunks.next() };
    },
    ({ first }) => {
      trace.firstByteMs = elapsedMs(request);
      addAdjustmentHeaders(request.headers, trace.adjustments);
      res.writeHead(200, {
        ...request.headers,
        ...SSE_HEADERS,
        'x-patchbay-provider': trace.endpoint!.provider,
        'x-patchbay-strategy': plan.strategy,
        'x-patchbay-route-reason': headerValue(trace.reason ?? plan.reason),
        // On a stream this is the time to the upstream's first chunk, not the whole answer.
        'x-patchbay-latency-ms': String(trace.firstByteMs),
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
    trace.gate?.failAfterFirstByte(error, request.status, signal.aborted);
    if (!res.writableEnded) res.end(codec.streamError(error));
  } finally {
    clearTimeout(silence);
    request.usage = reply.usage();
    if (stalled) request.errorType = 'client_stalled';
  }
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
