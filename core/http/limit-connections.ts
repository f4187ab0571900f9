import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

/** Connections whose client proved a credential (a /v1 key, the admin token, a dashboard session). */
const authenticated = new WeakSet<Socket>();

/**
 * The request's connection belongs to a client that proved a credential: at the cap it is closed
 * only after every connection that proved none (see limitConnections). Called where /v1 and /api
 * authenticate, before they read a body.
 */
export function markAuthenticated(socket: Socket): void {
  authenticated.add(socket);
}

/**
 * Caps open connections without letting slow clients lock everyone else out. Node's own
 * `server.maxConnections` refuses every newcomer once the cap is reached, so a local process that
 * opens the cap's worth of connections and trickles their headers, or sends a whole head and then
 * trickles its body, keeps every real client out until the request timeout (and starts again at
 * once). Here a newcomer beyond the cap closes instead, in this order:
 * 1. the connection that has waited longest without completing a request head (a real client sends
 *    its head in well under a millisecond, so the oldest such connection is the slowest sender);
 * 2. the oldest connection still sending the body of a request that proved no credential (the
 *    sign-in's, a refused /v1 request's): what anyone on the machine can open costs nothing to close;
 * 3. the oldest idle keep-alive connection;
 * and only when every connection is busy with a request, or with the body of an authenticated one
 * (an upload a key holder is making), is the newcomer closed.
 */
export function limitConnections(server: Server, max: number): void {
  const open = new Set<Socket>();
  // Connections that have not yet sent a whole request head, oldest first (a Set keeps insertion order).
  const headless = new Set<Socket>();
  // Each connection's request in progress: its `complete` says whether its body has all arrived.
  const current = new WeakMap<Socket, IncomingMessage>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    headless.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      headless.delete(socket);
    });
    if (open.size > max) (oldest(headless, socket) ?? oldestUnauthenticatedBody(open, current, socket) ?? oldestIdle(open, headless, socket) ?? socket).destroy();
  });
  server.on('request', (req: IncomingMessage) => {
    headless.delete(req.socket);
    current.set(req.socket, req);
  });
  // A WebSocket's upgrade is a whole request head too: its connection is busy, not a slow sender.
  server.on('upgrade', (req) => headless.delete(req.socket));
}

function oldest(sockets: Set<Socket>, except: Socket): Socket | undefined {
  for (const socket of sockets) if (socket !== except) return socket;
  return undefined;
}

/** A connection whose request has not yet sent all its body and proved no credential. Scanned only when the cap is reached. */
function oldestUnauthenticatedBody(open: Set<Socket>, current: WeakMap<Socket, IncomingMessage>, except: Socket): Socket | undefined {
  for (const socket of open) {
    if (socket === except || authenticated.has(socket)) continue;
    const request = current.get(socket);
    if (request && !request.complete) return socket;
  }
  return undefined;
}

/** A kept-alive connection between two requests. Scanned only when the cap is reached. */
function oldestIdle(open: Set<Socket>, headless: Set<Socket>, except: Socket): Socket | undefined {
  for (const socket of open) {
    // Node's http server points the socket at the response it is writing and clears it when done.
    if (socket !== except && !headless.has(socket) && !(socket as Socket & { _httpMessage?: unknown })._httpMessage) return socket;
  }
  return undefined;
}
