/**
 * Where a replica is in its life, as GET /health tells a reverse proxy:
 *
 * - ready: serving; /health answers 200.
 * - draining: SIGTERM came. /health answers 503 so the proxy's health check takes the replica out
 *   of its pool, while requests that still arrive are served in full (their answers close the
 *   connection, so no idle keep-alive connection is left for the proxy to reuse).
 * - stopping: the drain is over: the listener is closed (a new connection is refused, which a
 *   proxy retries on another replica), anything still arriving on an open connection gets a 503
 *   that says to retry, and requests in flight, streams included, finish.
 *
 * The drain waits only when someone polls /health (a proxy does; a laptop's Patchbay is never
 * polled and stops at once, as before).
 */
export type ReplicaState = 'ready' | 'draining' | 'stopping';

/** A /health poll within this long before SIGTERM means a proxy is watching: drain before closing. */
export const HEALTH_POLLED_WITHIN_MS = 60_000;

export interface HealthAnswer {
  status: 200 | 503;
  body: { status: ReplicaState };
}

export class ReplicaLifecycle {
  private current: ReplicaState = 'ready';
  private lastPolledAt: number | null = null;

  private readonly options: { drainMs: number; now?: () => number };

  constructor(options: { drainMs: number; now?: () => number }) {
    this.options = options;
  }

  get state(): ReplicaState {
    return this.current;
  }

  /** GET /health: 200 only while ready. Each poll is remembered (it shows a proxy is watching). */
  health(): HealthAnswer {
    this.lastPolledAt = this.now();
    return { status: this.current === 'ready' ? 200 : 503, body: { status: this.current } };
  }

  /**
   * SIGTERM: ready -> draining. Returns how long to keep serving before the listener closes: the
   * configured drain when /health was polled lately, else 0. Called again (a second signal), it
   * returns 0: stop without waiting further.
   */
  beginDrain(): number {
    if (this.current !== 'ready') return 0;
    this.current = 'draining';
    const polled = this.lastPolledAt !== null && this.now() - this.lastPolledAt <= HEALTH_POLLED_WITHIN_MS;
    return polled ? this.options.drainMs : 0;
  }

  /** The drain is over: the listener closes now. */
  beginStop(): void {
    this.current = 'stopping';
  }

  /** Whether a response may leave its connection open for another request. */
  get keepsConnectionsOpen(): boolean {
    return this.current === 'ready';
  }

  /** Whether a request arriving now is refused (503, retry elsewhere) rather than served. */
  get refusesNewRequests(): boolean {
    return this.current === 'stopping';
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
