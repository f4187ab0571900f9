import type { IncomingMessage, ServerResponse } from 'node:http';
import { PatchbayError } from '../errors/patchbay-error.ts';
import { anthropicCodec } from '../protocols/anthropic-messages/anthropic-codec.ts';
import { openAiCodec } from '../protocols/openai/openai-chat-codec.ts';
import { renderError } from './render-error.ts';
import type { ReplicaLifecycle } from './replica-lifecycle.ts';

/** The health endpoint a reverse proxy polls (no credentials; it says only ready, draining or stopping). */
export const HEALTH_PATH = '/health';

/**
 * The replica's lifecycle at the door of every request, before any other work: GET/HEAD /health
 * answered, and once the drain is over, a request refused with a 503 that says to retry (a proxy's
 * retry, or the client's, lands on another replica). While draining, every answer closes its
 * connection. Returns true when it answered.
 */
export function serveLifecycle(req: IncomingMessage, res: ServerResponse, lifecycle: ReplicaLifecycle, log: (message: string) => void): boolean {
  if (!lifecycle.keepsConnectionsOpen) res.setHeader('connection', 'close');
  const path = (req.url ?? '/').split('?')[0];
  if (path === HEALTH_PATH && (req.method === 'GET' || req.method === 'HEAD')) {
    const answer = lifecycle.health();
    const payload = JSON.stringify(answer.body);
    res.writeHead(answer.status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(payload) });
    res.end(req.method === 'HEAD' ? undefined : payload);
    return true;
  }
  if (!lifecycle.refusesNewRequests) return false;
  const codec = path.startsWith('/v1/messages') ? anthropicCodec : openAiCodec;
  renderError(res, replicaStoppingError(), log, codec);
  return true;
}

/** What a replica that is stopping answers a new request (a WebSocket upgrade too): 503, try again at once. */
export function replicaStoppingError(): PatchbayError {
  return new PatchbayError('This Patchbay replica is shutting down and takes no new requests; send the request again (another replica answers it).', {
    status: 503,
    type: 'server_error',
    code: 'replica_stopping',
    headers: { 'retry-after': '1' },
  });
}
