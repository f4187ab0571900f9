import type { ReplicaLifecycle } from '../http/replica-lifecycle.ts';

/**
 * A replica's shutdown (SIGTERM): /health turns "draining" at once, requests go on being served
 * while a proxy that polls /health takes the replica out of its pool (server.drainMs; no wait when
 * nothing polls), then `close` stops taking connections and finishes what is in flight. Each call
 * returns the same promise; a second call (a second signal) ends the wait at once.
 */
export function drainThenClose(lifecycle: ReplicaLifecycle, close: () => Promise<void>, log: (message: string) => void): () => Promise<void> {
  let done: Promise<void> | null = null;
  let endWait: (() => void) | null = null;
  return () => {
    const waitMs = lifecycle.beginDrain();
    if (endWait) endWait();
    else if (waitMs > 0) log(`Draining: /health says "draining"; serving on for ${waitMs} ms while the proxy takes this replica out, then finishing what is in flight.`);
    done ??= new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, waitMs);
      endWait = () => {
        clearTimeout(timer);
        resolve();
      };
    }).then(close);
    return done;
  };
}
