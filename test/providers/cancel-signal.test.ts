import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestCancel } from '../../core/providers/cancel-signal.ts';
import { sendUpstream, sendUpstreamForText } from '../../core/providers/send-upstream.ts';

describe('RequestCancel', () => {
  it('runs each listener once, in order, and not after it was removed or once cancelled', () => {
    const cancel = new RequestCancel();
    const calls: string[] = [];
    const removed = () => calls.push('removed');
    cancel.addEventListener('abort', () => calls.push('a'));
    cancel.addEventListener('abort', removed);
    cancel.addEventListener('abort', () => calls.push('b'));
    cancel.removeEventListener('abort', removed);
    cancel.abort();
    cancel.abort();
    cancel.addEventListener('abort', () => calls.push('late'));
    expect(calls).toEqual(['a', 'b']);
    expect(cancel.aborted).toBe(true);
    expect((cancel.reason as Error).name).toBe('AbortError');
  });

  describe('with undici (the upstream calls it is passed to)', () => {
    let server: Server;
    let closedConnections = 0;
    afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

    /** An upstream that never answers, counting connections the client closed. */
    const silentUpstream = async () => {
      server = createServer(() => undefined);
      server.on('connection', (socket) => socket.on('close', () => closedConnections++));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    };
    const options = (url: string, signal: RequestCancel, dispatcher: Agent) => ({
      provider: 'test',
      url: `${url}/v1/chat/completions`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal,
      timeoutMs: 10_000,
      dispatcher,
    });

    it('stops a waiting call of either kind and closes its connection when cancelled', async () => {
      const url = await silentUpstream();
      const dispatcher = new Agent();
      try {
        for (const send of [sendUpstreamForText, sendUpstream]) {
          const before = closedConnections;
          const cancel = new RequestCancel();
          const pending = send(options(url, cancel, dispatcher)).catch((error: unknown) => error);
          await new Promise((resolve) => setTimeout(resolve, 50));
          cancel.abort();
          expect(await pending).toMatchObject({ type: 'cancelled', message: expect.stringContaining('request cancelled by the client') });
          await expect.poll(() => closedConnections).toBe(before + 1);
        }
        // Already cancelled: the call is not even sent.
        const cancelled = new RequestCancel();
        cancelled.abort();
        expect(await sendUpstreamForText(options(url, cancelled, dispatcher)).catch((error: unknown) => error)).toMatchObject({ type: 'cancelled' });
      } finally {
        await dispatcher.close();
      }
    });
  });
});
