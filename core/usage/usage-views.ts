// The usage queries' answers as the management API sends them (renderer/API.md). Types only, so
// the dashboard can `import type` them (through core/management/management-views.ts).

import type { AttemptReport } from '../errors/provider-error.ts';
import type { AdjustmentsRecord } from '../protocols/neutral/adjustments.ts';

/** One try of one endpoint, as stored on the usage row and shown in the request log. */
export type AttemptView = AttemptReport;

/** One request of the request log (and of the live `request` event). */
export interface RequestRow {
  request_id: string;
  ts: string;
  key_id: string | null;
  key_name: string | null;
  endpoint: string;
  requested_model: string | null;
  provider: string | null;
  model: string | null;
  strategy: string | null;
  status: number;
  error_type: string | null;
  stream: boolean;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /**
   * Parts of prompt_tokens read from / written to the prompt cache, and of completion_tokens spent
   * reasoning. The server always sends them; optional so the dashboard's existing fixtures still type-check.
   */
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  reasoning_tokens?: number;
  /** Null when no price table knows the model that answered (price_unknown). */
  cost_usd: number | null;
  /** The model has no known price: this request's cost is not counted (a key with a USD cap never gets such a model). */
  price_unknown?: boolean;
  latency_ms: number;
  first_byte_ms: number | null;
  route_reason: string | null;
  attempts: AttemptView[];
  /**
   * What translation left out of the request or changed for the endpoint that answered
   * (X-Patchbay-Dropped / X-Patchbay-Adjusted); null when nothing. Optional for older fixtures.
   */
  adjustments?: AdjustmentsRecord | null;
  /** The label of the provider key that served (never the key); optional so the dashboard's existing fixtures still type-check. */
  provider_key?: string | null;
  /**
   * The client's session and agent as it named them (X-Patchbay-Session, Claude Code's and Codex's
   * ids, prompt_cache_key, user), where the name came from, and what the prompt cache saved against
   * list prices. Optional for the same reason as the cache counts.
   */
  session_id?: string | null;
  session_source?: string | null;
  agent_id?: string | null;
  parent_agent_id?: string | null;
  cache_saved_usd?: number;
  /** What the client was told when the request failed (why no provider was tried, which cap refused it). */
  error_message?: string | null;
  /** Served by a fallback: an endpoint tried after another one failed. */
  fallback?: boolean;
  /** What its agent said it was for (Claude Code's request class), null when it did not. Optional for the dashboard's older fixtures. */
  request_class?: string | null;
}

export interface UsageTotals {
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_usd: number;
}

export type SeriesBucket = 'day' | 'hour';
export type SeriesGroup = 'provider' | 'model' | 'key';

export interface SeriesPoint extends UsageTotals {
  /** "2026-11-01" (day) or "2026-11-01T13" (hour, UTC). */
  bucket: string;
  /** The provider, "provider/model", or the key id; null for requests without one. */
  group: string | null;
  /** The key's name when grouped by key (null for other groupings and for requests without a key). */
  key_name: string | null;
}

export interface UsageSeries {
  bucket: SeriesBucket;
  group_by: SeriesGroup;
  data: SeriesPoint[];
}

/** Latency percentiles come from a log-scale histogram and are exact to within one bucket (~9 %). */
export interface LatencyRow {
  day: string;
  provider: string;
  requests: number;
  errors: number;
  error_rate: number;
  p50_ms: number | null;
  p95_ms: number | null;
}

export interface RequestLogPage {
  data: RequestRow[];
  next_cursor: string | null;
}

/** Sums of a session (or one of its agents) over the range: the Sessions page's columns. */
export interface SessionSums {
  first_ts: string;
  last_ts: string;
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  /** What the prompt cache saved against list prices (negative when cache writes cost more than reads saved). */
  cache_saved_usd: number;
}

/** One agent of a session (Claude Code's subagents), with the agents it started nested under it. */
export interface SessionAgent extends SessionSums {
  agent_id: string;
  parent_agent_id: string | null;
  subagents: SessionAgent[];
}

/** A session's requests of one class (what its agent said they were for): what compactions, subagents and background calls cost. */
export interface SessionClassSums {
  /** main, subagent, workflow, compaction, auxiliary, side_reply ...; null for requests that did not say. */
  request_class: string | null;
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
}

/** One session of GET /api/usage/sessions. */
export interface SessionRow extends SessionSums {
  session_id: string;
  /**
   * The Patchbay key whose session it is, and its name (null: requests without a key). A session
   * belongs to its key: another key sending the same id is another session, listed apart.
   */
  key_id: string | null;
  key_name: string | null;
  /** Where the id came from: patchbay (X-Patchbay-Session), claude-code, codex, prompt_cache_key, user. */
  client: string;
  models: string[];
  providers: string[];
  /** Requests that named an agent, as a tree (empty when none did). */
  agents: SessionAgent[];
  /** Its sums per request class, the costliest first (one entry of class null when its client said none). Optional for the dashboard's older fixtures. */
  classes?: SessionClassSums[];
}

export interface SessionPage {
  data: SessionRow[];
  next_cursor: string | null;
}

export type BreakdownGroup = 'model' | 'provider' | 'key';

/** One line of the Usage page's tables: a model, provider or key over the chosen range. */
export interface BreakdownRow {
  /** "provider/model", the provider, or the key id; null for requests refused before any provider was tried (or, per key, sent without one). */
  group: string | null;
  /** The key's name (grouped by key; null otherwise or for requests without a key). */
  key_name: string | null;
  /** Requests it answered (refused ones, for the null group). */
  requests: number;
  /**
   * Per model and provider: its failed attempts, those a fallback rescued included. Per key, and for
   * requests refused before routing: failed requests.
   */
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** The part of prompt_tokens read from the provider's prompt cache. */
  cache_read_tokens: number;
  cost_usd: number;
  /** Over successful requests, from a log-scale histogram (exact to one bucket, ~9 %); null without one. */
  p50_ms: number | null;
  p95_ms: number | null;
}

export interface UsageBreakdown {
  group_by: BreakdownGroup;
  data: BreakdownRow[];
}
