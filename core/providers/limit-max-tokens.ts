import type { NeutralRequest } from '../protocols/neutral/neutral-request.ts';
import type { UpstreamCall } from './provider-adapter.ts';

/**
 * An output limit asked of one endpoint, lowered to what its model can write (the catalog's
 * max_output_tokens): agents send one value whatever the model (Claude Code 32,000; gpt-4o stops at
 * 16,384 and OpenAI refuses more). The change is recorded on the attempt's adjustments, named by
 * the caller's field. Called where the upstream body for an endpoint is built, so a fallback
 * endpoint gets its own limit. A catalog limit of 0 (unknown) changes nothing.
 */
export function limitMaxTokens(asked: number, call: Pick<UpstreamCall, 'endpoint' | 'adjustments'>, field: string): number;
export function limitMaxTokens(asked: number | null | undefined, call: Pick<UpstreamCall, 'endpoint' | 'adjustments'>, field: string): number | null | undefined;
export function limitMaxTokens(asked: number | null | undefined, call: Pick<UpstreamCall, 'endpoint' | 'adjustments'>, field: string): number | null | undefined {
  const limit = call.endpoint.maxOutput;
  if (asked == null || limit <= 0 || asked <= limit) return asked;
  call.adjustments?.adjust(`${field}=${limit} (${call.endpoint.model} output limit; asked ${asked})`);
  return limit;
}

/**
 * The neutral request with its output limit within the endpoint's, and a thinking budget kept below
 * it (Anthropic and Gemini refuse a budget at or over the answer's limit).
 */
export function limitNeutralMaxTokens(request: NeutralRequest, call: Pick<UpstreamCall, 'endpoint' | 'adjustments'>): NeutralRequest {
  if (request.maxTokens === undefined) return request;
  const maxTokens = limitMaxTokens(request.maxTokens, call, request.maxTokensSource ?? 'max_tokens');
  if (maxTokens === request.maxTokens) return request;
  const limited: NeutralRequest = { ...request, maxTokens };
  if (request.thinking && request.thinking.budgetTokens >= maxTokens) {
    const budgetTokens = Math.max(0, maxTokens - 1);
    call.adjustments?.adjust(`thinking.budget_tokens=${budgetTokens} (below ${request.maxTokensSource ?? 'max_tokens'}; asked ${request.thinking.budgetTokens})`);
    limited.thinking = { budgetTokens };
  }
  return limited;
}

/** An OpenAI chat or completions request with its output limits within the endpoint's (the same object when nothing changes). */
export function limitOpenAiRequest<T extends { max_tokens?: number | null; max_completion_tokens?: number | null }>(request: T, call: Pick<UpstreamCall, 'endpoint' | 'adjustments'>): T {
  const maxTokens = limitMaxTokens(request.max_tokens, call, 'max_tokens');
  const maxCompletionTokens = limitMaxTokens(request.max_completion_tokens, call, 'max_completion_tokens');
  if (maxTokens === request.max_tokens && maxCompletionTokens === request.max_completion_tokens) return request;
  return { ...request, ...(maxTokens != null ? { max_tokens: maxTokens } : {}), ...(maxCompletionTokens != null ? { max_completion_tokens: maxCompletionTokens } : {}) };
}
