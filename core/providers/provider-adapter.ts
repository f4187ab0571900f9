import type { Endpoint } from '../catalog/load-catalog.ts';
import type { ResolvedProvider } from '../config/load-config.ts';
import type { ChatRequest, CompletionRequest, EmbeddingRequest } from '../protocols/openai/request-schemas.ts';
import type { KeyRing } from '../secrets/key-ring.ts';
import type { CancelSignal } from './cancel-signal.ts';
import type { Adjustments } from '../protocols/neutral/adjustments.ts';
import type { NeutralRequest } from '../protocols/neutral/neutral-request.ts';
import type { PartStream, StreamPart } from '../protocols/neutral/stream-part.ts';

import type { Usage as OpenAiTotals } from '../protocols/openai/chat-types.ts';

/**
 * Usage as an adapter reports it for the usage row: OpenAI's counts (prompt_tokens includes the
 * cached tokens, completion_tokens the reasoning ones), their details as the upstream gave them,
 * and the prompt-cache writes OpenAI's usage has no field for (Anthropic's).
 */
export interface Usage extends OpenAiTotals {
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  /** Patchbay's own: kept beside the answer, never written into one. */
  cacheWrite?: { tokens5m: number; tokens1h: number };
}

/** Everything an adapter needs to reach one endpoint for one attempt. */
export interface UpstreamCall {
  endpoint: Endpoint;
  provider: ResolvedProvider;
  apiKey: string | undefined;
  /**
   * The provider's keys, when it may have several: the transport tries them in the ring's order,
   * moving to the next on a 429, a quota error or a 401 (that key rests), before this attempt
   * fails. Absent: `apiKey` is the one key.
   */
  keys?: KeyRing;
  /** Told the label of each key as it is tried (null: the provider has none): the usage row records the one that served. */
  onKey?: (label: string | null) => void;
  /** Aborted when the client goes away or the request is cancelled. */
  signal: CancelSignal;
  /** Longest wait for the upstream's response headers, and between two body chunks. */
  firstByteTimeoutMs: number;
  /** Told when the provider's rate-limit headers say its window is used up, and until when. */
  onRateLimitExhausted?: (untilMs: number) => void;
  /**
   * What this attempt's translation dropped or changed for this endpoint (one per attempt: a
   * fallback endpoint has its own). Set by the /v1 handlers; absent in direct adapter calls.
   */
  adjustments?: Adjustments;
  /** This attempt's trace context for the upstream (W3C traceparent), when telemetry is on. */
  traceHeaders?: Record<string, string>;
}

/** A complete response, already in OpenAI's wire format. */
export interface JsonReply {
  /** The serialized OpenAI JSON body sent to the client as is. */
  body: string;
  /** `body` as bytes, when the adapter has them (the upstream's own, unchanged): written without encoding the text again. */
  bytes?: Buffer;
  usage: Usage | null;
  /**
   * A same-protocol answer too large to hold (see pass-answer-through.ts): `bytes` is its head,
   * `body` empty, `usage` null; the remaining bytes come from `chunks` as the upstream sends them
   * (a failure after the head throws a ProviderError), and `usage()` is complete once they end.
   */
  rest?: { chunks: AsyncIterator<Buffer>; usage(): Usage | null };
}

/** A streamed response, already in OpenAI's chunk format. */
export interface StreamReply {
  /** Serialized OpenAI chunks (what follows `data: `), without the final `[DONE]`. A failure mid-stream throws a ProviderError. */
  chunks: AsyncIterator<string>;
  /** Usage reported by the upstream so far (complete once `chunks` is done). */
  usage(): Usage | null;
}

/** Anthropic Messages in, Anthropic out: the caller's own body forwarded (see anthropic/forward-messages.ts). */
export interface MessagesPassThrough {
  create(forwarded: { body: string; headers: Record<string, string> }, call: UpstreamCall): Promise<JsonReply>;
  stream(forwarded: { body: string; headers: Record<string, string> }, call: UpstreamCall): Promise<StreamReply>;
  countTokens(forwarded: { body: string; headers: Record<string, string> }, call: UpstreamCall): Promise<JsonReply>;
}

/** An adapter's own entry for the neutral model: it maps a neutral request to its upstream's wire and the answer back to parts. */
export interface NeutralEntry {
  /** A streamed answer; resolves once the upstream accepted the request (a refusal up to there is thrown). */
  stream(request: NeutralRequest, call: UpstreamCall): Promise<PartStream>;
  /** A whole answer from one non-streamed upstream call, as the parts a stream of it would have. */
  answer(request: NeutralRequest, call: UpstreamCall): Promise<StreamPart[]>;
}

/**
 * One wire protocol. Each method makes one attempt at one endpoint and either answers in
 * OpenAI's format or throws a ProviderError saying whether another endpoint may succeed.
 */
export interface ProviderAdapter {
  /** Present when this adapter's upstream speaks Anthropic Messages itself. */
  readonly messages?: MessagesPassThrough;
  /**
   * Present when the adapter maps the neutral model to its upstream itself (Gemini): every
   * translating ingress goes through it, its chat methods included. Absent (OpenAI-compatible
   * upstreams, whose wire is OpenAI chat): the neutral model reaches it through its chat methods.
   */
  readonly neutral?: NeutralEntry;
  /**
   * `passThrough`: the caller sends the answer on as it is (OpenAI chat in, OpenAI-compatible
   * out), so a large answer may come back as a head and its `rest`; translators leave it unset.
   */
  chat(request: ChatRequest, call: UpstreamCall, passThrough?: boolean): Promise<JsonReply>;
  /** Resolves once the upstream accepted the request; `includeUsage` asks for the final usage chunk. */
  streamChat(request: ChatRequest, call: UpstreamCall, includeUsage: boolean): Promise<StreamReply>;
  complete(request: CompletionRequest, call: UpstreamCall): Promise<JsonReply>;
  streamComplete(request: CompletionRequest, call: UpstreamCall, includeUsage: boolean): Promise<StreamReply>;
  embed(request: EmbeddingRequest, call: UpstreamCall): Promise<JsonReply>;
}
