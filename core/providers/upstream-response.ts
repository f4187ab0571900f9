import type { DispatchedBody, UpstreamBody } from './upstream-body.ts';

// What an upstream answered, as the transport hands it on, and how its headers are read.

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: UpstreamBody;
}

/** A whole upstream answer, already read: what every non-streaming call needs. */
export interface UpstreamText {
  status: number;
  headers: UpstreamResponse['headers'];
  text: string;
  /** The same answer as the bytes that arrived: sent on to the client as they are when nothing in it changes. */
  bytes: Buffer;
  /**
   * Set when the call allowed pass-through (`passThroughAfter`) and a 2xx answer went past it:
   * `bytes` is then only the answer's head (`text` is empty) and the rest arrives here, unlimited,
   * read at the pace of whoever reads it.
   */
  rest?: DispatchedBody;
}

export function headerValue(headers: UpstreamResponse['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Parses retry-after-ms / retry-after (seconds or HTTP date) into milliseconds. */
export function parseRetryAfter(headers: UpstreamResponse['headers'], now = Date.now()): number | undefined {
  const ms = headerValue(headers, 'retry-after-ms');
  if (ms !== undefined && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headerValue(headers, 'retry-after');
  if (value === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
