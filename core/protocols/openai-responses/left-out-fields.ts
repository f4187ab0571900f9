import type { ResponsesRequestBody } from './request-schema.ts';

/** The `include` value a translated answer honours: reasoning comes back with its signature whenever the upstream signs it. */
const HONOURED_INCLUDE = new Set(['reasoning.encrypted_content']);

/**
 * Fields of a Responses request that no translated upstream has a place for, named as the caller
 * wrote them. The answer is still right without them, so the request goes on without them and
 * says so (X-Patchbay-Dropped, the usage row): `client_metadata` (OpenAI's own bookkeeping; Codex
 * sends its thread and turn ids there), output controls only OpenAI's models take, `truncation:
 * "auto"` (Patchbay never cuts the conversation; an upstream refuses one over its window),
 * `reasoning.context` (which earlier reasoning OpenAI renders back to its model; elsewhere the
 * upstream decides) and `include` values naming output only OpenAI writes. `prompt_cache_key` is not here: an
 * OpenAI-compatible upstream may take it (the adapter says when it does not).
 */
export function leftOutFields(body: ResponsesRequestBody): string[] {
  const raw = body as Record<string, unknown>;
  const out: string[] = [];
  for (const field of ['client_metadata', 'prompt_cache_retention', 'service_tier', 'safety_identifier', 'max_tool_calls', 'top_logprobs']) {
    if (raw[field] != null) out.push(field);
  }
  if ((body.text as Record<string, unknown> | null | undefined)?.verbosity != null) out.push('text.verbosity');
  if (raw.truncation === 'auto') out.push('truncation');
  const reasoningContext = (body.reasoning as Record<string, unknown> | null | undefined)?.context;
  if (reasoningContext != null && reasoningContext !== 'auto') out.push('reasoning.context');
  if (Array.isArray(raw.include)) for (const value of raw.include) if (!HONOURED_INCLUDE.has(String(value))) out.push(`include[${String(value)}]`);
  return out;
}
