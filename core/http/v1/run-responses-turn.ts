import { request, type IncomingHttpHeaders } from 'node:http';
import { parseSseBlock, splitSseBlocks } from '../../providers/split-sse-blocks.ts';

/** Where a WebSocket turn is run: this server, as the WebSocket's client reached it. */
export interface TurnTarget {
  /** The address and port the upgrade came in on (this server's own listener). */
  address: string;
  port: number;
  /** The request headers to send (the key, the session's ids, Patchbay's routing headers). */
  headers: Record<string, string>;
}

/** How a turn ended: 200 once its events were all relayed, else the HTTP error Patchbay answered. */
export type TurnOutcome = { status: 200 } | { status: number; body: { error?: Record<string, unknown> } | null; headers: IncomingHttpHeaders };

/**
 * One turn of a Responses WebSocket run as what it is, a streamed POST /v1/responses on this very
 * server: the key, the caps and limits, routing (sticky sessions included), fallback and the usage
 * row are those of every other request, with no second code path. Each event's data is handed to
 * `onEvent` as written; the next bytes are read only once `ready()` says the client keeps up.
 */
export function runResponsesTurn(target: TurnTarget, body: string, signal: AbortSignal, onEvent: (data: string, name: string | undefined) => void, ready: () => Promise<void>): Promise<TurnOutcome> {
  return new Promise((resolve, reject) => {
    const host = target.address.includes(':') ? `[${target.address}]` : target.address;
    const post = request(`http://${host}:${target.port}/v1/responses`, { method: 'POST', headers: { ...target.headers, 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': Buffer.byteLength(body) }, signal });
    post.on('error', reject);
    post.on('response', (res) => {
      res.setEncoding('utf8');
      if (res.statusCode !== 200) {
        let text = '';
        res.on('data', (piece: string) => (text += piece));
        res.on('end', () => resolve({ status: res.statusCode ?? 502, body: parseJson(text), headers: res.headers }));
        res.on('error', reject);
        return;
      }
      let carry = '';
      res.on('data', (piece: string) => {
        const { blocks, rest } = splitSseBlocks(carry + piece);
        carry = rest;
        for (const block of blocks) {
          const event = parseSseBlock(block);
          if (event) onEvent(event.data, event.event);
        }
        res.pause();
        ready().then(() => res.resume(), () => res.destroy());
      });
      res.on('end', () => resolve({ status: 200 }));
      res.on('error', reject);
    });
    post.end(body);
  });
}

function parseJson(text: string): { error?: Record<string, unknown> } | null {
  try {
    return JSON.parse(text) as { error?: Record<string, unknown> };
  } catch {
    return null;
  }
}
