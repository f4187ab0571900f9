import type { IncomingMessage, ServerResponse } from 'node:http';
import { KeyLimiter } from '../../keys/key-limiter.ts';
import { RequestCancel } from '../../providers/cancel-signal.ts';
import { parseFallbackHeader, parseStrategyHeader } from '../../routing/resolve-model.ts';
import { ASSUMED_COMPLETION_TOKENS } from '../../routing/router.ts';
import { headerValue } from '../header-value.ts';
import { addAdjustmentHeaders } from './add-adjustment-headers.ts';
import { estimateAdmission, SINGLE_ANSWER } from './estimate-admission.ts';
import { NO_HINTS } from './read-agent-hints.ts';
import type { RoutedOperation } from './routed-operation.ts';
import { serveStream } from './serve-stream.ts';
import type { V1Context } from './v1-context.ts';
import { elapsedMs, type V1Request } from './v1-request.ts';
import { writePassedThrough } from './write-passed-through.ts';

/**
 * Routes one operation its ingress decoded and writes its answer, top to bottom: plan, admit
 * (a limited key's reservation), execute, then the answer as one JSON body, passed through, or
 * as an SSE stream (serve-stream.ts). The executor leaves on the request's trace all the answer
 * needs (endpoint, route reason, adjustments), so nothing here calls back into routing; the usage
 * row is built from the request once it is over (record-request.ts).
 * One async function for the whole JSON path, and a plan made without a
 * promise when it can be: every async layer costs each request a promise and a microtask turn.
 */
export async function serveRouted(req: IncomingMessage, res: ServerResponse, ctx: V1Context, request: V1Request, operation: RoutedOperation): Promise<void> {
  request.requestedModel = operation.route.model;
  request.stream = operation.stream;
  const observation = request.observation;
  if (observation) observation.decoded({ model: operation.route.model, stream: operation.stream, body: operation.body, maxTokens: operation.route.maxTokens });
  // Content is kept for the content log, and for spans only when telemetry.captureContent is on.
  if (ctx.contentLog || observation?.capturesContent) request.content = { request: JSON.stringify(operation.body), response: '' };
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
      pricedOnly: request.key?.monthlyUsdCap != null,
      usdCap: request.key?.monthlyUsdCap ?? undefined,
      strategy: parseStrategyHeader(req.headers['x-patchbay-strategy'] as string | undefined),
      fallbackModels: parseFallbackHeader(req.headers['x-patchbay-fallback'] as string | undefined),
      session: request.session.id,
      keyId: request.key?.id ?? null,
      affinity: operation.affinity,
      sticky: parseStickyHeader(req.headers['x-patchbay-sticky']),
      purpose: operation.purpose && (request.hints !== null || router.routesByPurpose) ? { ...(request.hints ?? NO_HINTS), ...operation.purpose() } : null,
    });
    const plan = planned instanceof Promise ? await planned : planned;
    if (observation) observation.planned(plan);
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
    const reply = await router.execute(plan, request.trace, abort, false, operation.json);
    const trace = request.trace;
    request.usage = reply.usage;
    trace.firstByteMs = elapsedMs(request);
    const headers = request.headers;
    headers['content-type'] = 'application/json';
    // A passed-through answer's length is not known yet: it goes chunked.
    if (!reply.rest) headers['content-length'] = String(reply.bytes ? reply.bytes.length : Buffer.byteLength(reply.body));
    headers['x-patchbay-provider'] = trace.endpoint!.provider;
    headers['x-patchbay-strategy'] = plan.strategy;
    headers['x-patchbay-route-reason'] = headerValue(trace.reason ?? plan.reason);
    headers['x-patchbay-latency-ms'] = String(trace.firstByteMs);
    addAdjustmentHeaders(headers, trace.adjustments);
    if (reply.rest) {
      await writePassedThrough(res, ctx, request, reply, abort);
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
