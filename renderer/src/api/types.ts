// Response and request types of /api. Where core already exports the type it is imported (type
// only, so nothing of core's runtime reaches the bundle); the rest are written exactly as
// renderer/API.md states them and marked TODO(core-types): replace each with `import type` from
// core/management/management-views.ts (usage rows) or management-schemas.ts (request bodies) once
// those land from the parallel work, so the UI and the API cannot drift.
import type { KeySettingsInput } from '../../../core/management/management-schemas.ts';
import type { KeyView, ManagementService, ProviderView } from '../../../core/management/management-service.ts';

export type { KeySettingsInput, KeyView };

/** TODO(core-types): `secret_withheld` and `models` come with the providers work. */
export type ProviderRow = ProviderView & {
  secret_withheld?: boolean;
  models?: ProviderModelInput[];
};

export type BreakerState = 'closed' | 'open' | 'half_open';

/** TODO(core-types): GET /api/status gains base_url and providers (API.md). */
export type StatusBody = ReturnType<ManagementService['status']> & {
  base_url?: string;
  providers?: ProviderStatus[];
};

export interface ProviderStatus {
  name: string;
  enabled: boolean;
  key_source: 'env' | 'keychain' | 'none';
  requires_key: boolean;
  secret_withheld: boolean;
  breaker: BreakerState;
  latency_p50_ms: number | null;
  error_rate: number | null;
  samples: number;
}

export interface ModelEntry {
  id: string;
  provider: string;
  kind: 'model' | 'alias' | 'custom_alias';
  members: string[];
  context_window: number | null;
  capabilities: string[];
  input_price: number | null;
  output_price: number | null;
}

/** TODO(core-types): the request body of POST /api/providers (API.md). */
export interface ProviderModelInput {
  id: string;
  contextWindow?: number;
  inputPrice?: number;
  outputPrice?: number;
}
export interface CreateProviderInput {
  name: string;
  baseUrl: string;
  apiKeyEnv?: string;
  models?: ProviderModelInput[];
}

export interface CredentialTestResult {
  ok: boolean;
  status: number | null;
  latency_ms: number | null;
  message: string;
}

/** TODO(core-types): GET /api/routing gains fallbacks and aliases (API.md). */
export type RoutingBody = ReturnType<ManagementService['getRouting']> & {
  fallbacks?: Record<string, string[]>;
  aliases?: Record<string, string[]>;
};

export type Need = 'tools' | 'images';
/** TODO(core-types): the request body of POST /api/routing/explain. */
export interface ExplainInput {
  model: string;
  strategy?: string;
  stream?: boolean;
  needs?: Need[];
  key_id?: string;
  prompt_tokens?: number;
  max_tokens?: number;
}
export interface ScorePart {
  value: number;
  weight: number;
}
export interface ExplainCandidate {
  endpoint: string;
  provider: string;
  model: string;
  rank: number;
  score: number;
  parts: { latency: ScorePart; cost: ScorePart; availability: ScorePart };
  expected_cost_usd: number | null;
  latency_p50_ms: number | null;
  success_rate: number | null;
  group: string;
}
export type SkipCode =
  | 'no_key'
  | 'disabled'
  | 'breaker_open'
  | 'rate_limited'
  | 'context_too_small'
  | 'capability_missing'
  | 'not_allowed_for_key'
  | 'secret_withheld';
export interface ExplainSkipped {
  endpoint: string;
  provider: string;
  model: string;
  code: SkipCode;
  reason: string;
}
export interface ExplainResult {
  model: string;
  strategy: string;
  reason: string;
  candidates: ExplainCandidate[];
  skipped: ExplainSkipped[];
}

/** TODO(core-types): usage rows from core/management/management-views.ts. */
export interface UsageTotals {
  requests: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_usd: number;
}
export type SeriesGroupBy = 'provider' | 'model' | 'key';
export interface SeriesRow extends UsageTotals {
  bucket: string;
  group: string | null;
}
export interface SeriesBody {
  bucket: 'day' | 'hour';
  group_by: SeriesGroupBy;
  data: SeriesRow[];
}
export interface LatencyRow {
  day: string;
  provider: string;
  requests: number;
  errors: number;
  error_rate: number;
  p50_ms: number | null;
  p95_ms: number | null;
}
export interface AttemptRow {
  provider: string;
  model: string;
  status: number | string;
  error_type: string | null;
  message: string | null;
  latency_ms: number | null;
}
export interface RequestRow {
  request_id: string;
  ts: string;
  key_id: string | null;
  key_name: string | null;
  endpoint: string;
  requested_model: string;
  provider: string | null;
  model: string | null;
  strategy: string | null;
  status: number | string;
  error_type: string | null;
  stream: boolean;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_usd: number;
  latency_ms: number | null;
  first_byte_ms: number | null;
  route_reason: string | null;
  attempts: AttemptRow[];
  explain?: ExplainResult;
}
export interface RequestLogPage {
  data: RequestRow[];
  next_cursor: string | null;
}
