import type { ServerResponse } from 'node:http';
import type { RequestCancel } from '../../providers/cancel-signal.ts';

/**
 * Waits until the client has taken what is buffered for it ('drain'), or left. A client that does
 * not within `stallMs` is dropped: the request is cancelled (which aborts the upstream call) and
 * its socket destroyed, so a client that never reads holds neither memory nor an upstream call.
 * Resolves true when the client was dropped. Costs nothing unless a write found the buffer full.
 */
export function waitForClient(res: ServerResponse, stallMs: number, signal: RequestCancel): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise<boolean>((resolve) => {
    const done = (stalled: boolean) => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onDrain);
      resolve(stalled);
    };
    const onDrain = () => done(false);
    const timer = setTimeout(() => {
      signal.abort(new DOMException(`The client took nothing of its stream for ${stallMs} ms.`, 'AbortError'));
      res.destroy();
      done(true);
    }, stallMs);
    res.on('drain', onDrain);
    res.on('close', onDrain);
  });
}
