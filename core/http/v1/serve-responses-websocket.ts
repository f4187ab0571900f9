import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { PatchbayError } from '../../errors/patchbay-error.ts';
import type { KeyBackend } from '../../keys/key-backend.ts';
import { errorFrame, errorFrameOf, extendChain, parseResponseCreate, resolveTurnInput, warmupEvents, type ConnectionChain } from '../../protocols/openai-responses/websocket-turns.ts';
import { authenticate } from '../authenticate.ts';
import type { HostGuard } from '../host-guard.ts';
import { MAX_BODY_BYTES } from '../read-json-body.ts';
import type { ReplicaLifecycle } from '../replica-lifecycle.ts';
import { replicaStoppingError } from '../serve-lifecycle.ts';
import { runResponsesTurn, type TurnTarget } from './run-responses-turn.ts';

export interface ResponsesWebSocketDeps {
  keys: Pick<KeyBackend, 'check'>;
  hostGuard: HostGuard;
  lifecycle: ReplicaLifecycle;
  log: (message: string) => void;
  /** How long one connection serves (OpenAI's: 60 minutes); Codex opens a new one when told. */
  connectionLifetimeMs?: number;
}

export const CONNECTION_LIFETIME_MS = 60 * 60 * 1000;
/** Past this many bytes queued for a client, the turn's upstream waits for it. */
const CLIENT_BUFFER_BYTES = 1024 * 1024;
/** Request headers a turn does not carry over from the upgrade (the connection's own, and the body's). */
const NOT_CARRIED = /^(host|connection|upgrade|content-length|content-type|accept|accept-encoding|transfer-encoding|keep-alive|te|trailer|sec-websocket-.*|x-codex-turn-metadata)$/;

/**
 * GET /v1/responses with `Upgrade: websocket` (Codex with `supports_websockets`): the Responses API
 * on one connection per session. The upgrade passes the same Host guard and key check as any /v1
 * request; each `response.create` then runs as a streamed POST /v1/responses on this server (so
 * caps, limits, sticky routing and usage rows are the ones of every request), with the input the
 * connection's chain resolves (websocket-turns.ts), one turn at a time.
 */
export function createResponsesWebSocket(deps: ResponsesWebSocketDeps): { upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void; close: (graceMs: number) => Promise<void> } {
  // The largest frame Codex may send: the largest body a POST may have (Codex reads the header and keeps under it).
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES, perMessageDeflate: { threshold: 1024 }, clientTracking: true });
  wss.on('headers', (headers, req) => {
    headers.push(`x-codex-websocket-max-message-bytes: ${MAX_BODY_BYTES}`);
    const turnState = req.headers['x-codex-turn-state'];
    if (typeof turnState === 'string') headers.push(`x-codex-turn-state: ${turnState.replace(/[\r\n]/g, '')}`);
  });
  const busy = new Set<WebSocket>();
  const lifetime = deps.connectionLifetimeMs ?? CONNECTION_LIFETIME_MS;

  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (req.url ?? '/').split('?')[0];
    try {
      if (path !== '/v1/responses') throw new PatchbayError(`Patchbay serves WebSockets only at GET /v1/responses (the Responses API), not at ${path.slice(0, 200)}.`, { status: 404, type: 'invalid_request_error', code: 'unknown_url' });
      if (deps.lifecycle.refusesNewRequests) throw replicaStoppingError();
      deps.hostGuard.check(req);
      authenticate(req, deps.keys);
    } catch (error) {
      refuse(socket, error);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, req));
  };

  const serve = (ws: WebSocket, req: IncomingMessage) => {
    const openedAt = Date.now();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && !NOT_CARRIED.test(name)) headers[name] = value;
    headers.host = req.headers.host ?? '';
    const target: TurnTarget = { address: req.socket.localAddress ?? '127.0.0.1', port: req.socket.localPort ?? 0, headers };
    let chain: ConnectionChain | null = null;
    let queue = Promise.resolve();
    const aborts = new AbortController();
    // Compressed (where the client asked for permessage-deflate) only once the turn's first token is
    // out: compressing runs on the thread pool, and the events before it would wait for it.
    let streaming = false;
    const send = (frame: unknown, compress = false) => ws.readyState === ws.OPEN && ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame), { compress });
    const ready = () => waitForClient(ws, aborts.signal);

    const turn = async (text: string) => {
      if (ws.readyState !== ws.OPEN) return;
      if (Date.now() - openedAt > lifetime) {
        send(errorFrame(400, { type: 'invalid_request_error', code: 'websocket_connection_limit_reached', message: `Responses websocket connection limit reached (${Math.round(lifetime / 60_000)} minutes). Create a new websocket connection to continue.` }));
        ws.close(1000, 'connection lifetime reached');
        return;
      }
      let input: unknown[];
      let frame;
      try {
        frame = parseResponseCreate(text);
        input = resolveTurnInput(chain, frame);
      } catch (error) {
        send(errorFrameOf(error));
        return;
      }
      if (!frame.generate) {
        const id = `resp_${randomBytes(12).toString('hex')}`;
        for (const event of warmupEvents(frame.body, id, Math.floor(Date.now() / 1000))) send(event);
        chain = extendChain(input, { id, output: [] });
        return;
      }
      busy.add(ws);
      try {
        streaming = false;
        const outcome = await runResponsesTurn(target, JSON.stringify({ ...frame.body, input, stream: true }), aborts.signal, (data, name) => {
          send(data, streaming && data.length > 1024);
          streaming ||= name?.endsWith('.delta') === true;
          if (name === 'response.completed' || (name === undefined && data.includes('"response.completed"'))) {
            const event = JSON.parse(data) as { type?: string; response?: { id?: unknown; output?: unknown } };
            if (event.type === 'response.completed' && event.response) chain = extendChain(input, event.response) ?? chain;
          }
        }, ready);
        if (outcome.status !== 200 && 'body' in outcome) {
          const carried = Object.fromEntries(Object.entries(outcome.headers).filter(([name, value]) => typeof value === 'string' && (name === 'retry-after' || name.startsWith('x-ratelimit-') || name === 'x-patchbay-request-id')) as [string, string][]);
          send(errorFrame(outcome.status, outcome.body?.error ?? { type: 'server_error', message: `Patchbay answered ${outcome.status}.` }, carried));
        }
      } catch (error) {
        if (!aborts.signal.aborted) {
          deps.log(`A Responses WebSocket turn failed: ${error instanceof Error ? error.message : String(error)}`);
          send(errorFrame(502, { type: 'server_error', code: 'stream_error', message: 'The answer was cut before it ended; send the request again.' }));
        }
      } finally {
        busy.delete(ws);
        if (deps.lifecycle.refusesNewRequests) ws.close(1001, 'Patchbay is stopping');
      }
    };

    ws.on('message', (data, isBinary) => {
      const text = isBinary ? null : String(data);
      queue = queue.then(() => (text === null ? void send(errorFrame(400, { type: 'invalid_request_error', message: 'Send JSON text frames, not binary ones.' })) : turn(text)));
    });
    ws.on('close', () => aborts.abort());
    ws.on('error', (error) => deps.log(`A Responses WebSocket failed: ${error.message}`));
  };

  /** Idle connections close at once, busy ones after their turn; whatever is left at the deadline is cut. */
  const close = (graceMs: number) =>
    new Promise<void>((resolve) => {
      const open = [...wss.clients];
      if (open.length === 0) return resolve();
      let left = open.length;
      const deadline = setTimeout(() => open.forEach((ws) => ws.terminate()), graceMs);
      for (const ws of open) {
        ws.once('close', () => {
          if (--left === 0) {
            clearTimeout(deadline);
            resolve();
          }
        });
        if (!busy.has(ws)) ws.close(1001, 'Patchbay is stopping');
      }
    });

  return { upgrade, close };
}

/** Resolves once the client has taken most of what was sent (or the connection is gone). */
function waitForClient(ws: WebSocket, signal: AbortSignal): Promise<void> {
  if (ws.bufferedAmount <= CLIENT_BUFFER_BYTES || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const check = setInterval(() => {
      if (ws.bufferedAmount <= CLIENT_BUFFER_BYTES || signal.aborted || ws.readyState !== ws.OPEN) {
        clearInterval(check);
        resolve();
      }
    }, 10);
  });
}

/** An upgrade refused with the HTTP answer a POST would have had (its status and OpenAI-shaped error). */
function refuse(socket: Duplex, error: unknown): void {
  const status = error instanceof PatchbayError ? error.status : 500;
  const body = JSON.stringify(error instanceof PatchbayError ? error.toBody() : { error: { type: 'server_error', message: 'Patchbay failed while answering.' } });
  // The error's own headers too (Retry-After on a replica that is stopping), as renderError writes them for HTTP.
  const extra = error instanceof PatchbayError && error.headers ? Object.entries(error.headers).map(([name, value]) => `${name}: ${value.replace(/[\r\n]/g, '')}\r\n`).join('') : '';
  socket.end(`HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Error'}\r\nconnection: close\r\n${extra}content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}
