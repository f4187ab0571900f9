import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Caps open connections without letting slow clients lock everyone else out. Node's own
 * `server.maxConnections` refuses every newcomer once the cap is reached, so a local process that
 * opens the cap's worth of connections and trickles their headers keeps every real client out until
 * the header timeout. Here a newcomer beyond the cap closes instead the connection that has waited
 * longest without completing a request head (a real client sends its head in well under a
 * millisecond, so the oldest such connection is the slowest sender); failing that, the oldest idle
 * keep-alive connection; and only when every connection is busy with a request is the newcomer closed.
 */
export function limitConnections(server: Server, max: number): void {
  const open = new Set<Socket>();
  // Connections that have not yet sent a whole request head, oldest first (a Set keeps insertion order).
  const headless = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    headless.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      headless.delete(socket);
    });
    if (open.size > max) (oldest(headless, socket) ?? oldestIdle(open, headless, socket) ?? socket).destroy();
  });
  server.on('request', (req) => headless.delete(req.socket));
}

function oldest(sockets: Set<Socket>, except: Socket): Socket | undefined {
  for (const socket of sockets) if (socket !== except) return socket;
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
