// The request log's SQL, the same text on SQLite and PostgreSQL (UsageQueries, PostgresUsageQueries).

/** A request's columns as the request log and detail read them (the same SQL on both backends). */
export const ROW_COLUMNS = `u.ts, u.id, u.request_id, u.key_id, k.name AS key_name, u.endpoint, u.requested_model, u.provider, u.model, u.strategy, u.status,
  u.error_type, u.stream, u.prompt_tokens, u.completion_tokens, u.total_tokens, u.cache_read_tokens, u.cache_write_5m_tokens, u.cache_write_1h_tokens, u.reasoning_tokens, u.cost_usd, u.latency_ms, u.first_byte_ms, u.route_reason, u.attempts, u.adjustments, u.provider_key,
  u.session_id, u.session_source, u.agent_id, u.parent_agent_id, u.cache_saved_usd, u.error_message, u.fallback, u.price_unknown, u.request_class`;

/**
 * The request log's model filter in both dialects (`p` the parameter): the name a user knows, i.e.
 * the alias or id the client asked for, the provider's own model id, or provider/model. A
 * `:strategy` suffix on the asked-for name (llama-3.3-70b:cost) still matches the plain name.
 */
export const modelMatches = (p: string): string =>
  `(u.model = ${p} OR u.requested_model = ${p} OR substr(u.requested_model, 1, length(${p}) + 1) = ${p} || ':' OR (u.provider || '/' || u.model) = ${p})`;
