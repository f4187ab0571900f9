import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { PatchbayConfig } from '../config/load-config.ts';
import { limitConnections } from './limit-connections.ts';

/**
 * The server for the request listener, listening at `port` on `host`. Slowloris bounds: headers and
 * request bodies must arrive in seconds (Node's defaults allow a minute or more), and open
 * connections are capped (near the cap, the slowest header senders go first). requestTimeout covers
 * receiving the request only, so long answers and streams are not cut. Rejects with the listen
 * error (EADDRINUSE, say).
 */
export async function startHttpServer(listener: RequestListener, config: PatchbayConfig, at: { port: number; host: string }, upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void): Promise<Server> {
  const server = createServer(
    {
      keepAliveTimeout: 65_000,
      noDelay: true,
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, config.headersTimeoutMs),
      // Only a WebSocket upgrade leaves HTTP: another (curl --http2's h2c) is answered as the plain request it also is (Node 24; older Nodes ignore this).
      shouldUpgradeCallback: (req: IncomingMessage) => req.headers.upgrade?.toLowerCase() === 'websocket',
    },
    listener,
  );
  limitConnections(server, config.maxConnections);
  if (upgrade) server.on('upgrade', upgrade);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/**
 * Stops accepting and resolves once every connection is gone. Keep-alive connections become idle
 * as their last response ends: they are closed as they do, and in-flight requests (long streams
 * included) get up to `graceMs`, then their connections are cut.
 */
export function stopHttpServer(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections();
  });
}
