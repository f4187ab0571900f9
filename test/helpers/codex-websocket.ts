import WebSocket from 'ws';
import { codexHeaders } from './codex-request.ts';

/** A turn's frames as Codex reads them: every event, up to the one that ends the turn. */
export interface WebSocketTurn {
  events: Record<string, any>[];
  /** response.completed's response, or null. */
  completed: Record<string, any> | null;
  /** An `error` frame (the turn refused), or null. */
  error: Record<string, any> | null;
  /** Bytes of the frame this side sent. */
  sentBytes: number;
}

/**
 * A Responses WebSocket as Codex opens it (GET /v1/responses, Upgrade: websocket, its headers and
 * the OpenAI-Beta responses_websockets header), with the `ws` client; one turn at a time.
 */
export class CodexWebSocket {
  readonly socket: WebSocket;
  private pending: { events: Record<string, any>[]; done: (turn: Omit<WebSocketTurn, 'sentBytes'>) => void } | null = null;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data) => {
      const event = JSON.parse(String(data)) as Record<string, any>;
      const turn = this.pending;
      if (!turn) return;
      turn.events.push(event);
      if (event.type === 'response.completed' || event.type === 'response.failed' || event.type === 'response.incomplete') turn.done({ events: turn.events, completed: event.type === 'response.completed' ? event.response : null, error: null });
      else if (event.type === 'error') turn.done({ events: turn.events, completed: null, error: event });
    });
  }

  /** Opens the connection; rejects with the HTTP status of a refused upgrade. */
  static open(baseUrl: string, key: string | null, headers: Record<string, string> = {}): Promise<CodexWebSocket> {
    const { 'content-type': _type, accept: _accept, ...codex } = codexHeaders(key ?? '');
    if (key === null) delete (codex as Record<string, string>).authorization;
    const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/v1/responses`, { headers: { ...codex, 'openai-beta': 'responses_websockets=2026-02-06', ...headers }, perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(new CodexWebSocket(socket)));
      socket.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode} ${body}`), { status: res.statusCode, body })));
      });
      socket.once('error', reject);
    });
  }

  /** Sends one response.create frame and resolves with the turn's frames. */
  turn(frame: Record<string, unknown>): Promise<WebSocketTurn> {
    const text = JSON.stringify({ type: 'response.create', ...frame });
    return new Promise((resolve) => {
      this.pending = { events: [], done: (turn) => { this.pending = null; resolve({ ...turn, sentBytes: Buffer.byteLength(text) }); } };
      this.socket.send(text);
    });
  }

  close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }
}
