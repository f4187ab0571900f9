import type { Attributes } from '@opentelemetry/api';
import type { UsageRecord } from '../usage/usage-record.ts';

/**
 * The OpenTelemetry GenAI semantic conventions Patchbay implements: v1.45.0 (the GenAI conventions
 * are still "development"; docs/observability.md lists each attribute). Written out here, not
 * imported from @opentelemetry/semantic-conventions' incubating entry, which may change them in
 * any minor release: a pinned name changes only when this file does.
 */
export const GEN_AI_SEMCONV_VERSION = '1.45.0';
export const SCHEMA_URL = `https://opentelemetry.io/schemas/${GEN_AI_SEMCONV_VERSION}`;

/** gen_ai.operation.name per /v1 endpoint (the conventions' well-known values where one fits). */
export function operationName(endpoint: string): string {
  switch (endpoint) {
    case 'completions':
      return 'text_completion';
    case 'embeddings':
      return 'embeddings';
    case 'count_tokens':
      return 'count_tokens';
    default:
      // Chat Completions, Anthropic Messages and OpenAI Responses are all chat.
      return 'chat';
  }
}

/** gen_ai.provider.name: the conventions' name where Patchbay's provider has one, else the provider as configured. */
export function providerName(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}

const PROVIDER_NAMES: Record<string, string> = { gemini: 'gcp.gemini', mistral: 'mistral_ai', xai: 'x_ai', bedrock: 'aws.bedrock' };

/** The request parameters the conventions name, read from the decoded body of any of the ingress protocols. */
export function requestAttributes(body: unknown, maxTokens: number | undefined): Attributes {
  const attributes: Attributes = {};
  if (maxTokens !== undefined) attributes['gen_ai.request.max_tokens'] = maxTokens;
  if (!body || typeof body !== 'object') return attributes;
  const fields = body as Record<string, unknown>;
  number(attributes, 'gen_ai.request.temperature', fields.temperature);
  number(attributes, 'gen_ai.request.top_p', fields.top_p);
  number(attributes, 'gen_ai.request.top_k', fields.top_k);
  number(attributes, 'gen_ai.request.frequency_penalty', fields.frequency_penalty);
  number(attributes, 'gen_ai.request.presence_penalty', fields.presence_penalty);
  number(attributes, 'gen_ai.request.seed', fields.seed);
  if (typeof fields.n === 'number' && fields.n !== 1) attributes['gen_ai.request.choice.count'] = fields.n;
  const stop = fields.stop ?? fields.stop_sequences;
  if (typeof stop === 'string') attributes['gen_ai.request.stop_sequences'] = [stop];
  else if (Array.isArray(stop) && stop.every((s) => typeof s === 'string')) attributes['gen_ai.request.stop_sequences'] = stop as string[];
  if (typeof fields.encoding_format === 'string') attributes['gen_ai.request.encoding_formats'] = [fields.encoding_format];
  return attributes;
}

/** Token counts as the conventions split them: input includes the cache reads and writes, output the reasoning. */
export function usageAttributes(row: UsageRecord): Attributes {
  const attributes: Attributes = {
    'gen_ai.usage.input_tokens': row.promptTokens,
    'gen_ai.usage.output_tokens': row.completionTokens,
  };
  if (row.cacheReadTokens) attributes['gen_ai.usage.cache_read.input_tokens'] = row.cacheReadTokens;
  const written = (row.cacheWrite5mTokens ?? 0) + (row.cacheWrite1hTokens ?? 0);
  if (written) attributes['gen_ai.usage.cache_creation.input_tokens'] = written;
  if (row.reasoningTokens) attributes['gen_ai.usage.reasoning.output_tokens'] = row.reasoningTokens;
  return attributes;
}

/** Patchbay's own facts about a finished request (never content, never a secret: the key's id, not the key). */
export function patchbayAttributes(row: UsageRecord, sticky: boolean | null): Attributes {
  const attributes: Attributes = {
    'patchbay.request.id': row.requestId,
    'patchbay.endpoint': row.endpoint,
    'patchbay.status': row.status,
    'patchbay.cost_usd': row.costUsd,
    'patchbay.fallback': row.fallback === true,
    'patchbay.attempts': row.attempts.length,
  };
  if (row.strategy) attributes['patchbay.strategy'] = row.strategy;
  if (row.routeReason) attributes['patchbay.route.reason'] = row.routeReason;
  if (sticky !== null) attributes['patchbay.sticky'] = sticky;
  if (row.keyId) attributes['patchbay.key.id'] = row.keyId;
  if (row.providerKey) attributes['patchbay.provider_key'] = row.providerKey;
  if (row.sessionSource) attributes['patchbay.session.source'] = row.sessionSource;
  if (row.agentId) attributes['patchbay.agent.id'] = row.agentId;
  if (row.cacheSavedUsd) attributes['patchbay.cache_saved_usd'] = row.cacheSavedUsd;
  const adjustments = row.adjustments;
  if (adjustments) {
    if (adjustments.dropped?.length) attributes['patchbay.adjustments.dropped'] = adjustments.dropped;
    if (adjustments.adjusted?.length) attributes['patchbay.adjustments.adjusted'] = adjustments.adjusted;
  }
  return attributes;
}

/** error.type of a failed request: Patchbay's error code (all_providers_failed, insufficient_quota, ...), or the HTTP status. */
export function errorType(row: Pick<UsageRecord, 'status' | 'errorType'>): string | null {
  if (row.status < 400) return null;
  return row.errorType ?? String(row.status);
}

/** A refusal Patchbay made itself for a key's limits (no provider was tried): rate limits and monthly caps. */
export function isCapRefusal(row: Pick<UsageRecord, 'status' | 'errorType' | 'attempts'>): boolean {
  return row.attempts.length === 0 && (row.errorType === 'insufficient_quota' || row.errorType === 'rate_limit_exceeded' || row.errorType === 'cap_unavailable');
}

function number(attributes: Attributes, name: string, value: unknown): void {
  if (typeof value === 'number' && Number.isFinite(value)) attributes[name] = value;
}
