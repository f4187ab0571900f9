import { priceDay, pricesOnDay } from '../../catalog/prices-on-day.ts';
import type { PatchbayConfig } from '../../config/load-config.ts';
import type { Usage } from '../../providers/provider-adapter.ts';
import type { HealthTracker } from '../../routing/health-tracker.ts';
import type { RouteTrace } from '../../routing/route-trace.ts';
import { costOfAnswer } from '../../usage/cost-of-answer.ts';
import type { TokenCounts } from '../../usage/price-usage.ts';
import type { UsageSink } from '../../usage/usage-backend.ts';
import type { UsageRecord } from '../../usage/usage-record.ts';
import { elapsedMs, type V1Request } from './v1-request.ts';

/** Where a finished request is recorded. */
export interface RequestRecorder {
  usage: UsageSink;
  /** Told every attempt of each request (a provider's error rate and last error on the Overview). */
  health?: Pick<HealthTracker, 'recordAttempts'>;
  config: Pick<PatchbayConfig, 'routingFeeUsd' | 'contentLog'>;
}

/**
 * A /v1 request's last step, once its answer is out or failed: its usage row, built here once from
 * what the request and its route trace hold, settles the key's reservation, is queued for the usage
 * store (which tells the live events), and its attempts go to the providers' health; the content
 * log, when on, gets the request's content.
 */
export function recordRequest(request: V1Request, recorder: RequestRecorder): void {
  const row = toUsageRecord(request, recorder.config.routingFeeUsd);
  request.admission?.settle({ tokens: row.totalTokens, costUsd: row.costUsd });
  recorder.usage.record(row);
  if (row.attempts.length > 0) recorder.health?.recordAttempts(row.attempts, row.ts);
  // Content kept only for telemetry's spans (captureContent) stays out of the content log.
  if (request.content && recorder.config.contentLog) recorder.usage.recordContent({ requestId: request.requestId, ts: request.startedWall, ...request.content });
  request.observation?.finish(row, request.content);
}

function toUsageRecord(request: V1Request, routingFeeUsd: number): UsageRecord {
  // At the prices of the day the request came (a change the price table announced applies from
  // its day, in a Patchbay that started before it too): the row's prices and its cost.
  const served = request.trace.endpoint;
  const endpoint = served?.laterPrices ? pricesOnDay(served, priceDay(new Date(request.startedWall))) : served;
  const usage = request.usage;
  const counts = tokenCounts(usage);
  const prompt = counts.promptTokens;
  const completion = counts.completionTokens;
  const succeeded = request.status < 400;
  // A model without a known price costs nothing here and says so (priceUnknown), never a made-up 0.
  const cost = endpoint ? costOfAnswer(counts, endpoint) : 0;
  const tokenCost = cost ?? 0;
  const priced = endpoint && cost !== null ? endpoint : null;
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
    inputPrice: priced?.inputPrice ?? null,
    outputPrice: priced?.outputPrice ?? null,
    costUsd: tokenCost + (succeeded ? routingFeeUsd : 0),
    latencyMs: elapsedMs(request),
    firstByteMs: request.trace.firstByteMs,
    attempts: request.trace.attempts,
    routeReason: request.trace.reason,
    errorMessage: succeeded ? null : request.errorMessage,
    fallback: request.trace.fallback,
    cacheReadTokens: counts.cacheReadTokens,
    cacheWrite5mTokens: counts.cacheWrite5mTokens,
    cacheWrite1hTokens: counts.cacheWrite1hTokens,
    reasoningTokens: counts.reasoningTokens,
    adjustments: request.trace.adjustments?.toRecord() ?? null,
    providerKey: request.trace.keyLabel,
    sessionId: request.session.id,
    sessionSource: request.session.source,
    agentId: request.session.agentId,
    parentAgentId: request.session.parentAgentId,
    cacheSavedUsd: priced && usage ? cacheSaved(counts, priced, tokenCost) : 0,
    ...(cost === null ? { priceUnknown: true } : {}),
    requestClass: request.hints?.requestClass ?? null,
  };
}

/** What the prompt would have cost at the list input price with no cache, minus what it cost (negative when a cache write cost more). */
function cacheSaved(counts: TokenCounts, endpoint: NonNullable<RouteTrace['endpoint']>, tokenCost: number): number {
  if (counts.cacheReadTokens === 0 && counts.cacheWrite5mTokens === 0 && counts.cacheWrite1hTokens === 0) return 0;
  return (costOfAnswer({ ...counts, cacheReadTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0 }, endpoint) ?? 0) - tokenCost;
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
