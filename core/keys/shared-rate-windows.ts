import type { ApiKeyRecord } from './key-store.ts';

/** What the shared windows answered for one request: admitted or not, and the key's minute as it stood then. */
export interface SharedRateResult {
  admitted: boolean;
  /** Requests and tokens in the key's window, this request included when admitted. */
  requests: number;
  tokens: number;
  /** Until the oldest admission leaves the window (the Retry-After of a refusal, the x-ratelimit-reset-* of an admission). */
  retryMs: number;
  /** The bucket the admission went into, for `adjust` (the second, in the database's clock). */
  bucket: number;
}

/**
 * Requests- and tokens-per-minute windows that several replicas share (PostgreSQL). A key without
 * `rpm_limit` / `tpm_limit` never reaches them. Each admission is one round trip; `adjust` (a
 * request settled at what it really used) is sent without waiting.
 */
export interface SharedRateWindows {
  admit(key: ApiKeyRecord, tokens: number): Promise<SharedRateResult>;
  adjust(key: ApiKeyRecord, bucket: number, deltaTokens: number): void;
  close(): Promise<void>;
}
