import type { AdjustmentsRecord } from '../protocols/neutral/adjustments.ts';
import type { UsageRecord } from './usage-record.ts';
import type { AttemptView, RequestRow } from './usage-views.ts';

/** A row of the usage table as SQLite returns it, with the key's name joined in. */
export interface StoredUsageRow {
  ts: number;
  request_id: string;
  key_id: string | null;
  key_name: string | null;
  endpoint: string;
  requested_model: string | null;
  provider: string | null;
  model: string | null;
  strategy: string | null;
  status: number;
  error_type: string | null;
  stream: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cache_read_tokens: number;
  cache_write_5m_tokens: number;
  cache_write_1h_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
  latency_ms: number;
  first_byte_ms: number | null;
  route_reason: string | null;
  attempts: string;
  adjustments: string | null;
  provider_key: string | null;
  session_id: string | null;
  session_source: string | null;
  agent_id: string | null;
  parent_agent_id: string | null;
  cache_saved_usd: number;
  error_message: string | null;
  fallback: number;
  price_unknown: number;
  request_class: string | null;
}

/** The row's adjustments column (JSON text or NULL) as the API answers it. */
export function parseAdjustments(text: string | null | undefined): AdjustmentsRecord | null {
  return text ? (JSON.parse(text) as AdjustmentsRecord) : null;
}

/** A usage row as the export and `patchbay usage requests` give it: every column, stream as a boolean, attempts and adjustments parsed. */
export function toExportRow(row: Record<string, unknown>): Record<string, unknown> {
  return { ...row, stream: row.stream === 1, attempts: JSON.parse(row.attempts as string), adjustments: parseAdjustments(row.adjustments as string | null) };
}

export function storedToRequestRow(row: StoredUsageRow): RequestRow {
  return {
    request_id: row.request_id,
    ts: new Date(row.ts).toISOString(),
    key_id: row.key_id,
    key_name: row.key_name,
    endpoint: row.endpoint,
    requested_model: row.requested_model,
    provider: row.provider,
    model: row.model,
    strategy: row.strategy,
    status: row.status,
    error_type: row.error_type,
    stream: row.stream === 1,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    total_tokens: row.total_tokens,
    cache_read_tokens: row.cache_read_tokens,
    cache_write_tokens: row.cache_write_5m_tokens + row.cache_write_1h_tokens,
    reasoning_tokens: row.reasoning_tokens,
    cost_usd: row.price_unknown ? null : row.cost_usd,
    price_unknown: row.price_unknown === 1,
    latency_ms: row.latency_ms,
    first_byte_ms: row.first_byte_ms,
    route_reason: row.route_reason,
    attempts: JSON.parse(row.attempts) as AttemptView[],
    adjustments: parseAdjustments(row.adjustments),
    provider_key: row.provider_key,
    session_id: row.session_id,
    session_source: row.session_source,
    agent_id: row.agent_id,
    parent_agent_id: row.parent_agent_id,
    cache_saved_usd: row.cache_saved_usd,
    error_message: row.error_message,
    fallback: row.fallback === 1,
    request_class: row.request_class ?? null,
  };
}

/** The row the live `request` event carries: the same shape the request log answers with. */
export function recordToRequestRow(record: UsageRecord, keyName: string | null): RequestRow {
  return {
    request_id: record.requestId,
    ts: new Date(record.ts).toISOString(),
    key_id: record.keyId,
    key_name: keyName,
    endpoint: record.endpoint,
    requested_model: record.requestedModel,
    provider: record.provider,
    model: record.model,
    strategy: record.strategy,
    status: record.status,
    error_type: record.errorType,
    stream: record.stream,
    prompt_tokens: record.promptTokens,
    completion_tokens: record.completionTokens,
    total_tokens: record.totalTokens,
    cache_read_tokens: record.cacheReadTokens ?? 0,
    cache_write_tokens: (record.cacheWrite5mTokens ?? 0) + (record.cacheWrite1hTokens ?? 0),
    reasoning_tokens: record.reasoningTokens ?? 0,
    cost_usd: record.priceUnknown ? null : record.costUsd,
    price_unknown: record.priceUnknown === true,
    latency_ms: record.latencyMs,
    first_byte_ms: record.firstByteMs,
    route_reason: record.routeReason ?? null,
    attempts: record.attempts satisfies AttemptView[],
    adjustments: record.adjustments ?? null,
    provider_key: record.providerKey ?? null,
    session_id: record.sessionId ?? null,
    session_source: record.sessionSource ?? null,
    agent_id: record.agentId ?? null,
    parent_agent_id: record.parentAgentId ?? null,
    cache_saved_usd: record.cacheSavedUsd ?? 0,
    error_message: record.errorMessage ?? null,
    fallback: record.fallback ?? false,
    request_class: record.requestClass ?? null,
  };
}
