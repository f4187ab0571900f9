import type { IngressCodec } from '../../protocols/ingress-codec.ts';
import type { JsonReply, ProviderAdapter, StreamReply, UpstreamCall } from '../../providers/provider-adapter.ts';
import type { RequestPurpose } from '../../routing/match-route-rule.ts';
import type { RouteRequest } from '../../routing/router.ts';
import type { FanOut } from './estimate-admission.ts';

/**
 * One /v1 request as its ingress decoded it, ready to route: what planning needs, and the attempt
 * the executor makes at each endpoint it tries (the ingress's own mapping to that upstream).
 */
export interface RoutedOperation {
  /** The validated body, kept only when the content log is on. */
  body: unknown;
  route: Omit<RouteRequest, 'strategy' | 'fallbackModels' | 'stream' | 'allowedModels' | 'session' | 'keyId' | 'sticky' | 'purpose'>;
  /**
   * What the body says the request is for (thinking, tools offered); routing.rules match it with the
   * agent's hints. Asked only when there are rules or hints. Absent: no rule applies.
   */
  purpose?: () => Pick<RequestPurpose, 'thinking' | 'tools'>;
  /** The hash of the request's stable prefix, which names a session that the client did not (sticky routing). */
  affinity?: () => string | null;
  stream: boolean;
  includeUsage: boolean;
  /** How many generations the request can cost (estimate-admission.ts); one answer when absent. */
  fanOut?: FanOut;
  /** The caller's protocol: how stream items, the stream's end and errors are written (OpenAI's when absent). */
  codec?: IngressCodec;
  /** The attempt at one endpoint for a whole answer: handed to the executor as it is. */
  json: (adapter: ProviderAdapter, call: UpstreamCall) => Promise<JsonReply>;
  openStream?(adapter: ProviderAdapter, call: UpstreamCall, includeUsage: boolean): Promise<StreamReply>;
}
