// What one request leaves behind for the usage store: its row (metadata, never content) and, only
// when the content log is on, its content. Both backends take these (UsageSink in usage-backend.ts).
import type { AttemptReport } from '../errors/provider-error.ts';
import type { AdjustmentsRecord } from '../protocols/neutral/adjustments.ts';

/** One request's metadata. Never content. */
export interface UsageRecord {
  ts: number;
  requestId: string;
  keyId: string | null;
  endpoint: 'chat' | 'completions' | 'embeddings' | 'models';
  requestedModel: string | null;
  provider: string | null;
  model: string | null;
  strategy: string | null;
  status: number;
  errorType: string | null;
  stream: boolean;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** USD per million tokens in force when the request ran. */
  inputPrice: number | null;
  outputPrice: number | null;
  costUsd: number;
  latencyMs: number;
  firstByteMs: number | null;
  attempts: AttemptReport[];
  /** Why routing chose this endpoint (X-Patchbay-Route-Reason), null when routing never ran. */
  routeReason?: string | null;
  /** Parts of promptTokens read from / written to the provider's prompt cache (absent = 0). */
  cacheReadTokens?: number;
  cacheWrite5mTokens?: number;
  cacheWrite1hTokens?: number;
  /** The part of completionTokens spent reasoning (absent = 0). */
  reasoningTokens?: number;
  /** What translation dropped or changed for the answering endpoint (X-Patchbay-Dropped / -Adjusted); null or absent: nothing. */
  adjustments?: AdjustmentsRecord | null;
  /** The label of the provider key that served (absent = none recorded). */
  providerKey?: string | null;
  /** The client's session, as it named it (capped at 128 characters), and where that name came from. */
  sessionId?: string | null;
  sessionSource?: string | null;
  /** The agent within the session that sent it (Claude Code's subagents), and its parent agent. */
  agentId?: string | null;
  parentAgentId?: string | null;
  /** List price of the prompt without its cache minus what it cost (absent = 0). */
  cacheSavedUsd?: number;
  /** The error message the client was answered with (absent: none). */
  errorMessage?: string | null;
  /** Served by an endpoint tried after another one failed. */
  fallback?: boolean;
  /** No table prices the model that answered (a model only its provider's list names): costUsd is 0 and means "unknown". */
  priceUnknown?: boolean;
  /** What the request was for, as its agent said (Claude Code's request class: main, subagent, compaction ...); absent: not said. */
  requestClass?: string | null;
}

/** Request and response content of one request (only when the content log is turned on). */
export interface ContentEntry {
  requestId: string;
  ts: number;
  request: string;
  response: string | null;
}
