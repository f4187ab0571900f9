import { connect, createServer, type Server, type Socket } from 'node:net';

/** One client connection through the proxy: its request head, and the bytes each way. */
export interface ProxiedConnection {
  /** The first line and headers the client sent (lower-cased header names kept as sent). */
  head: string;
  /** Bytes from the client to the server, and back. */
  sent: number;
  received: number;
}

/**
 * A TCP proxy in front of Patchbay that counts what crosses it, per connection: what a client
 * really sends on the wire (HTTP heads, bodies, WebSocket frames, compression included), and which
 * requests it made (a POST, or an upgrade to a WebSocket).
 */
export class ByteCountingProxy {
  readonly connections: ProxiedConnection[] = [];
  private server: Server | null = null;
  private readonly open = new Set<Socket>();

  async start(target: { host: string; port: number }): Promise<string> {
    this.server = createServer((client) => {
      const seen: ProxiedConnection = { head: '', sent: 0, received: 0 };
      this.connections.push(seen);
      const upstream = connect(target.port, target.host);
      // As the endpoints themselves do: no Nagle delay on small writes (a WebSocket frame, an SSE event).
      client.setNoDelay(true);
      upstream.setNoDelay(true);
      this.open.add(client).add(upstream);
      client.on('data', (chunk: Buffer) => {
        if (seen.sent === 0 || seen.head.length < 4096) seen.head = (seen.head + chunk.toString('latin1')).split('\r\n\r\n')[0].slice(0, 4096);
        seen.sent += chunk.length;
      });
      upstream.on('data', (chunk: Buffer) => (seen.received += chunk.length));
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
        this.open.delete(client);
        this.open.delete(upstream);
      };
      client.on('error', end);
      upstream.on('error', end);
      client.on('close', end);
      upstream.on('close', end);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address() as { port: number };
    return `http://127.0.0.1:${address.port}`;
  }

  /** Connections whose request starts with this (e.g. "GET /v1/responses", "POST /v1/responses"). */
  requests(start: string): ProxiedConnection[] {
    return this.connections.filter((c) => c.head.startsWith(start));
  }

  stop(): Promise<void> {
    for (const socket of this.open) socket.destroy();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
