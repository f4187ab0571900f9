import { randomBytes } from 'node:crypto';
import type { Admission } from '../../keys/admission.ts';
import type { ApiKeyRecord } from '../../keys/key-store.ts';
import type { Usage } from '../../providers/provider-adapter.ts';
import { createRouteTrace, type RouteTrace } from '../../routing/route-trace.ts';
import type { RequestObservation } from '../../telemetry/request-observation.ts';
import type { UsageRecord } from '../../usage/usage-record.ts';
import type { AgentHints } from './read-agent-hints.ts';
import type { SessionIdentity } from './read-session.ts';

export type V1Endpoint = UsageRecord['endpoint'] | 'messages' | 'count_tokens' | 'responses';

/** What one /v1 request accumulates on its way; it becomes the usage row when the request ends (record-request.ts). */
export interface V1Request {
  requestId: string;
  startedAt: number;
  startedWall: number;
  /** Which /v1 endpoint; recorded on the usage row (its column is text; core/usage's type names the older four). */
  endpoint: V1Endpoint;
  key: ApiKeyRecord | null;
  requestedModel: string | null;
  stream: boolean;
  trace: RouteTrace;
  usage: Usage | null;
  status: number;
  errorType: string | null;
  /** The error message the client was answered with, kept on the usage row. */
  errorMessage: string | null;
  /** The key limiter's reservation, settled when the request ends. */
  admission: Admission | null;
  /** The client's session and agent (headers first, then the body's ids). */
  session: SessionIdentity;
  /** What the client's headers say the request is for (Claude Code's gateway hints), null when they say nothing. */
  hints: AgentHints | null;
  /** Content for the debugging log; set only when the content log is on. */
  content: { request: string; response: string } | null;
  /**
   * Headers every answer to this request carries (its id, a limited key's x-ratelimit-*), written
   * together in one writeHead: Node's setHeader per header costs more on the hot path.
   */
  headers: Record<string, string>;
  /** Telemetry's view of this request (its span, its metrics); null when telemetry is off. */
  observation: RequestObservation | null;
}

let counter = 0;
const processTag = randomBytes(4).toString('hex');
let prefixMs = -1;
let prefix = '';

/** Unique, sortable enough, and cheap: no crypto call per request, the time part formatted once per millisecond. */
function nextRequestId(): string {
  counter = (counter + 1) % 0x7fffffff;
  const now = Date.now();
  if (now !== prefixMs) {
    prefixMs = now;
    prefix = `req_${now.toString(36)}${processTag}`;
  }
  return `${prefix}${counter.toString(36).padStart(5, '0')}`;
}

export function createV1Request(endpoint: V1Endpoint): V1Request {
  const requestId = nextRequestId();
  return {
    requestId,
    startedAt: performance.now(),
    startedWall: Date.now(),
    endpoint,
    key: null,
    requestedModel: null,
    stream: false,
    trace: createRouteTrace(),
    usage: null,
    status: 200,
    errorType: null,
    errorMessage: null,
    admission: null,
    session: { id: null, source: null, agentId: null, parentAgentId: null },
    hints: null,
    content: null,
    headers: { 'x-patchbay-request-id': requestId },
    observation: null,
  };
}

/** Milliseconds since the request arrived, to two decimals. */
export function elapsedMs(request: V1Request): number {
  return Math.round((performance.now() - request.startedAt) * 100) / 100;
}
