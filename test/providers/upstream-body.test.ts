import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestCancel } from '../../core/providers/cancel-signal.ts';
import { sendUpstream } from '../../core/providers/send-upstream.ts';

/** Streamed bodies as sendUpstream delivers them (undici dispatch into a DispatchedBody), against a real HTTP server. */
describe('a streamed upstream body', () => {
  let server: Server;
  /** This test's server only: a previous server's sockets may still report closing. */
  let counts = { connections: 0, closed: 0 };
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const upstream = async (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
    const mine = { connections: 0, closed: 0 };
    counts = mine;
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => handler(req, res));
    });
    server.on('connection', (socket) => {
      mine.connections++;
      socket.on('close', () => mine.closed++);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const send = (url: string, signal = new RequestCancel()) =>
    sendUpstream({ provider: 'test', url: `${url}/v1/chat/completions`, headers: { 'content-type': 'application/json' }, body: '{}', signal, timeoutMs: 5000, dispatcher: agent });
  const line = (i: number) => `data: ${JSON.stringify({ i, pad: 'x'.repeat(200) })}\n\n`;

  it('delivers every chunk in order to a reader far slower than the upstream', async () => {
    const url = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // One line per turn of the event loop: the reader gets them as many separate chunks.
      let i = 0;
      const next = () => {
        if (i === 400) return void res.end();
        res.write(line(i++));
        setImmediate(next);
      };
      next();
    });
    const response = await send(url);
    let text = '';
    let reads = 0;
    for await (const chunk of response.body) {
      text += Buffer.from(chunk).toString('utf8');
      // The first reads are slow: chunks pile up meanwhile (undici is told to pause, then to resume).
      if (reads++ < 5) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(text).toBe(Array.from({ length: 400 }, (_, i) => line(i)).join(''));
  });

  it('reads and drops a short rest after the reader stops, keeping the connection; gives up a long one', async () => {
    let restBytes = 0;
    const url = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
      // The rest follows a moment later, after the reader has stopped.
      setTimeout(() => res.end('x'.repeat(restBytes)), 30);
    });
    for (const [rest, keepsConnection] of [
      [100, true],
      [200_000, false],
    ] as const) {
      restBytes = rest;
      // Let undici put the last request's connection back in its pool before the next one is sent.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const before = { ...counts };
      const response = await send(url);
      for await (const chunk of response.body) {
        expect(Buffer.from(chunk).toString('utf8')).toBe('data: first\n\n');
        break;
      }
      // A closed connection is waited for (generously); a kept one is checked after a short while.
      if (keepsConnection) await new Promise((resolve) => setTimeout(resolve, 150));
      await vi.waitFor(() => expect(counts.closed - before.closed).toBe(keepsConnection ? 0 : 1), { timeout: 60_000, interval: 10 });
      // The next request reuses the connection when it was kept.
      const opened = counts.connections;
      const next = await send(url);
      await next.body.text();
      expect(counts.connections - opened).toBe(keepsConnection ? 0 : 1);
    }
  });

  it('fails the reader with a retryable network error when the connection drops mid-body, and with a cancellation when cancelled', async () => {
    const url = await upstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const dropped = await send(url);
    const error = await (async () => {
      for await (const _chunk of dropped.body);
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ retryable: true, type: 'network_error' });

    const cancel = new RequestCancel();
    const cancelled = await send(url, cancel);
    setTimeout(() => cancel.abort(), 5);
    const reason = await cancelled.body.text().catch((e: unknown) => e);
    expect(reason).toMatchObject({ type: 'cancelled' });
  });
});
