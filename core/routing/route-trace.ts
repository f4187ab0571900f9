import type { Endpoint } from '../catalog/load-catalog.ts';
import type { Strategy } from '../config/config-schema.ts';
import type { AttemptReport } from '../errors/provider-error.ts';
import type { Adjustments } from '../protocols/neutral/adjustments.ts';

/** The first-byte gate (first-byte-gate.ts) as the writer of a committed answer calls it: a failure after the first byte. */
export interface CommittedAnswer {
  /** A committed answer failed (`cancelled`: the client left, which says nothing about the endpoint). */
  failAfterFirstByte(error: unknown, status: number, cancelled: boolean): void;
}

/**
 * Told each attempt as the executor makes it (telemetry's attempt spans; null when telemetry is
 * off, so the executor pays one null check). `start` returns the headers that carry this attempt's
 * trace context to the upstream (W3C traceparent), `end` gets the attempt's row once it failed or
 * answered (an answer's span stays open until the request ends: a stream is still flowing).
 */
export interface AttemptObserver {
  startAttempt(endpoint: Endpoint, baseUrl: string): AttemptWatch;
}

export interface AttemptWatch {
  headers: Record<string, string> | undefined;
  end(report: AttemptReport): void;
}

/**
 * What routing did for one request, and everything its answer and usage row need of it: the
 * executor fills it in as it goes (the plan's strategy, each attempt, the endpoint, its key and
 * adjustments, the route reason as it turned out), so the answer's headers and the usage row read
 * it and call nothing back in routing.
 */
export interface RouteTrace {
  strategy: Strategy | null;
  attempts: AttemptReport[];
  /** The endpoint that answered (or was being tried last). */
  endpoint: Endpoint | null;
  /** Milliseconds from the start of the request to the upstream's first byte (streams) or full answer. */
  firstByteMs: number | null;
  /**
   * The route reason as it turned out: the plan's ("cost chose groq/…"), and when a fallback served
   * the request, which endpoints failed and which one answered (describe-route.ts).
   */
  reason: string | null;
  /** Whether a fallback served the request (describe-route.ts). */
  fallback: boolean;
  /** What the latest attempt's translation dropped or changed (the answering one's, once answered). */
  adjustments: Adjustments | null;
  /** Whether the answer is committed to the client yet (set when the executor starts). */
  gate: CommittedAnswer | null;
  /** The label of the provider key that served (or was tried last), null for a provider without keys. */
  keyLabel: string | null;
  /** Telemetry's attempt spans, when on. */
  observer: AttemptObserver | null;
}

export function createRouteTrace(): RouteTrace {
  return { strategy: null, attempts: [], endpoint: null, firstByteMs: null, reason: null, fallback: false, adjustments: null, gate: null, keyLabel: null, observer: null };
}
