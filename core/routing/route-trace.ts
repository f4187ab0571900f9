import type { Endpoint } from '../catalog/load-catalog.ts';
import type { Strategy } from '../config/config-schema.ts';
import type { AttemptReport } from '../errors/provider-error.ts';
import type { FirstByteGate } from './first-byte-gate.ts';

/** What routing did for one request: filled in as it goes, read by the usage record and headers. */
export interface RouteTrace {
  strategy: Strategy | null;
  attempts: AttemptReport[];
  /** The endpoint that answered (or was being tried last). */
  endpoint: Endpoint | null;
  /** Milliseconds from the start of the request to the upstream's first byte (streams) or full answer. */
  firstByteMs: number | null;
  reason: string | null;
  /** Whether the answer is committed to the client yet (set when the executor starts). */
  gate: FirstByteGate | null;
  /** The label of the provider key that served (or was tried last), null for a provider without keys. */
  keyLabel: string | null;
}

export function createRouteTrace(): RouteTrace {
  return { strategy: null, attempts: [], endpoint: null, firstByteMs: null, reason: null, gate: null, keyLabel: null };
}
