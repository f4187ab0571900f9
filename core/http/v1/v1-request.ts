import { randomBytes } from 'node:crypto';
import type { Admission } from '../../keys/admission.ts';
import type { ApiKeyRecord } from '../../keys/key-store.ts';
import type { Usage } from '../../providers/provider-adapter.ts';
import type { Adjustments } from '../../protocols/neutral/adjustments.ts';
import { describeRoute, servedByFallback } from '../../routing/describe-route.ts';
import { createRouteTrace, type RouteTrace } from '../../routing/route-trace.ts';
import { priceUsage, type TokenCounts } from '../../usage/price-usage.ts';
import type { UsageRecord } from '../../usage/usage-record.ts';
import type { SessionIdentity } from './read-session.ts';

export type V1Endpoint = UsageRecord['endpoint'] | 'messages' | 'count_tokens' | 'responses';

/** What one /v1 request accumulates on its way; it becomes the usage row when the request ends. */
export interface V1Request {
  requestId: string;
  startedAt: number;
  startedWall: number;
  /** Which /v1 endpoint; recorded on the usage row (its column is text; core/usage's type names the older four). */
  endpoint: V1Endpoint;
  key: ApiKeyRecord | null;
  requestedModel: string | null;
  stream: boolean;
  trace: RouteTrace;
  usage: Usage | null;
  status: number;
  errorType: string | null;
  /** What the latest attempt's translation dropped or changed (X-Patchbay-Dropped / -Adjusted, the usage row). */
  adjustments: Adjustments | null;
  /** The error message the client was answered with, kept on the usage row. */
  errorMessage: string | null;
  /** The key limiter's reservation, settled when the request ends. */
  admission: Admission | null;
  /** The client's session and agent (headers first, then the body's ids). */
  session: SessionIdentity;
  /** Content for the debugging log; set only when the content log is on. */
  content: { request: string; response: string } | null;
  /**
   * Headers every answer to this request carries (its id, a limited key's x-ratelimit-*), written
   * together in one writeHead: Node's setHeader per header costs more on the hot path.
   */
  headers: Record<string, string>;
}

let counter = 0;
const processTag = randomBytes(4).toString('hex');
let prefixMs = -1;
let prefix = '';

/** Unique, sortable enough, and cheap: no crypto call per request, the time part formatted once per millisecond. */
function nextRequestId(): string {
  counter = (counter + 1) % 0x7fffffff;
  const now = Date.now();
  if (now !== prefixMs) {
    prefixMs = now;
    prefix = `req_${now.toString(36)}${processTag}`;
  }
  return `${prefix}${counter.toString(36).padStart(5, '0')}`;
}

export function createV1Request(endpoint: V1Endpoint): V1Request {
  const requestId = nextRequestId();
  return {
    requestId,
    startedAt: performance.now(),
    startedWall: Date.now(),
    endpoint,
    key: null,
    requestedModel: null,
    stream: false,
    trace: createRouteTrace(),
    usage: null,
    status: 200,
    errorType: null,
    errorMessage: null,
    admission: null,
    adjustments: null,
    session: { id: null, source: null, agentId: null, parentAgentId: null },
    content: null,
    headers: { 'x-patchbay-request-id': requestId },
  };
}

/** Milliseconds since the request arrived, to two decimals. */
export function elapsedMs(request: V1Request): number {
  return Math.round((performance.now() - request.startedAt) * 100) / 100;
}

export function toUsageRecord(request: V1Request, routingFeeUsd: number): UsageRecord {
  const endpoint = request.trace.endpoint;
  const usage = request.usage;
  const counts = tokenCounts(usage);
  const prompt = counts.promptTokens;
  const completion = counts.completionTokens;
  const succeeded = request.status < 400;
  const tokenCost = endpoint ? priceUsage(counts, endpoint) : 0;
  return {
    ts: request.startedWall,
    requestId: request.requestId,
    keyId: request.key?.id ?? null,
    endpoint: request.endpoint as UsageRecord['endpoint'],
    requestedModel: request.requestedModel,
    provider: endpoint?.provider ?? null,
    model: endpoint?.model ?? null,
    strategy: request.trace.strategy,
    status: request.status,
    errorType: request.errorType,
    stream: request.stream,
    promptTokens: prompt,
    completionTokens: completion,
    totalTokens: usage?.total_tokens ?? prompt + completion,
    inputPrice: endpoint?.inputPrice ?? null,
    outputPrice: endpoint?.outputPrice ?? null,
    costUsd: tokenCost + (succeeded ? routingFeeUsd : 0),
    latencyMs: elapsedMs(request),
    firstByteMs: request.trace.firstByteMs,
    attempts: request.trace.attempts,
    routeReason: describeRoute(request.trace),
    errorMessage: succeeded ? null : request.errorMessage,
    fallback: servedByFallback(request.trace.attempts),
    cacheReadTokens: counts.cacheReadTokens,
    cacheWrite5mTokens: counts.cacheWrite5mTokens,
    cacheWrite1hTokens: counts.cacheWrite1hTokens,
    reasoningTokens: counts.reasoningTokens,
    adjustments: request.adjustments?.toRecord() ?? null,
    providerKey: request.trace.keyLabel,
    sessionId: request.session.id,
    sessionSource: request.session.source,
    agentId: request.session.agentId,
    parentAgentId: request.session.parentAgentId,
    cacheSavedUsd: endpoint && usage ? cacheSaved(counts, endpoint, tokenCost) : 0,
  };
}

/** What the prompt would have cost at the list input price with no cache, minus what it cost (negative when a cache write cost more). */
function cacheSaved(counts: TokenCounts, endpoint: NonNullable<RouteTrace['endpoint']>, tokenCost: number): number {
  if (counts.cacheReadTokens === 0 && counts.cacheWrite5mTokens === 0 && counts.cacheWrite1hTokens === 0) return 0;
  return priceUsage({ ...counts, cacheReadTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0 }, endpoint) - tokenCost;
}

/** The row's counts from what the adapter reported (details an upstream left out or sent as null count 0). */
function tokenCounts(usage: Usage | null): TokenCounts {
  return {
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? 0,
    cacheReadTokens: count(usage?.prompt_tokens_details?.cached_tokens),
    cacheWrite5mTokens: usage?.cacheWrite?.tokens5m ?? 0,
    cacheWrite1hTokens: usage?.cacheWrite?.tokens1h ?? 0,
    reasoningTokens: count(usage?.completion_tokens_details?.reasoning_tokens),
  };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}
