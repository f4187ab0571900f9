import type { IncomingHttpHeaders } from 'node:http';
import type { RoutePlan } from '../routing/route-plan.ts';
import type { AttemptObserver } from '../routing/route-trace.ts';
import type { UsageRecord } from '../usage/usage-record.ts';

/** What the /v1 walk tells telemetry about one routed request once its ingress decoded it. */
export interface DecodedRequest {
  model: string;
  stream: boolean;
  /** The decoded body (request parameters; content only when captureContent is on). */
  body: unknown;
  maxTokens: number | undefined;
}

/**
 * One request as telemetry follows it: its span (continuing the client's traceparent), a child span
 * per attempt (AttemptObserver, which routing calls), and its metrics once the usage row is built.
 */
export interface RequestObservation extends AttemptObserver {
  /** Whether prompt and answer content go on the span (telemetry.captureContent). */
  readonly capturesContent: boolean;
  decoded(request: DecodedRequest): void;
  planned(plan: Pick<RoutePlan, 'sticky'>): void;
  /** The request is over: its row is what the usage store records; content only when captured. */
  finish(row: UsageRecord, content: { request: string; response: string } | null): void;
}

/** Telemetry while it is on; `Telemetry.active` is null when off, so a request pays one null check. */
export interface RequestTelemetry {
  observe(headers: IncomingHttpHeaders, endpoint: string): RequestObservation;
}
