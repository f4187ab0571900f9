import type { KeyLimiter } from '../../keys/key-limiter.ts';
import type { Router } from '../../routing/router.ts';

/** What /v1 handlers share: the router, the key limiter and the routing fee. */
export interface V1Context {
  router: Router;
  limiter: KeyLimiter;
  routingFeeUsd: number;
  /** Keep request and response content for debugging (usage.contentLog, off by default). */
  contentLog: boolean;
  /** A streaming client that takes nothing of its answer for this long is dropped. */
  clientStallTimeoutMs: number;
  /** The wire protocol a provider speaks (to find the endpoints that can answer a Messages call natively). */
  protocolOf(provider: string): string | undefined;
}
