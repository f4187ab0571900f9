import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Catalog } from '../../catalog/load-catalog.ts';
import type { PatchbayConfig } from '../../config/load-config.ts';
import { PatchbayError } from '../../errors/patchbay-error.ts';
import { KeyLimiter } from '../../keys/key-limiter.ts';
import type { KeyBackend } from '../../keys/key-backend.ts';
import type { HealthTracker } from '../../routing/health-tracker.ts';
import type { Router } from '../../routing/router.ts';
import type { Telemetry } from '../../telemetry/telemetry.ts';
import type { UsageSink } from '../../usage/usage-backend.ts';
import { authenticate } from '../authenticate.ts';
import { abandonResponse, renderError } from '../render-error.ts';
import type { IngressCodec } from '../../protocols/ingress-codec.ts';
import { anthropicCodec } from '../../protocols/anthropic-messages/anthropic-codec.ts';
import { encodeModelList } from '../../protocols/anthropic-messages/encode-model-list.ts';
import { openAiCodec } from '../../protocols/openai/openai-chat-codec.ts';
import { handleChatCompletions } from './handle-chat-completions.ts';
import { handleCountTokens } from './handle-count-tokens.ts';
import { handleMessages } from './handle-messages.ts';
import { createResponsesHandler } from './handle-responses.ts';
import { responsesCodec } from '../../protocols/openai-responses/responses-codec.ts';
import { handleCompletions } from './handle-completions.ts';
import { handleEmbeddings } from './handle-embeddings.ts';
import { listModels } from './list-models.ts';
import { listCodexModels } from './list-codex-models.ts';
import type { V1Context } from './v1-context.ts';
import { recordRequest } from './record-request.ts';
import { readAgentHints } from './read-agent-hints.ts';
import { readSessionHeaders } from './read-session.ts';
import { createV1Request, elapsedMs, type V1Request } from './v1-request.ts';

export interface V1Deps {
  config: PatchbayConfig;
  catalog: Catalog;
  router: Router;
  keys: Pick<KeyBackend, 'check'>;
  limiter: KeyLimiter;
  usage: UsageSink;
  /** Told every attempt of each request (a provider's error rate and last error on the Overview). */
  health?: Pick<HealthTracker, 'recordAttempts'>;
  log: (message: string) => void;
  /** OpenTelemetry traces and metrics; `active` is null while they are off. */
  telemetry?: Pick<Telemetry, 'active' | 'serveMetrics'>;
}

type V1Handler = (req: IncomingMessage, res: ServerResponse, ctx: V1Context, request: V1Request) => Promise<void>;
type Route = (req: IncomingMessage, res: ServerResponse, path: string) => void;

/**
 * The /v1 API on Node's own request and response objects: one table lookup, no middleware chain.
 * It is the hot path (every client request), so nothing runs here that a /v1 request does not need.
 * Returns false for paths it does not serve, which then go to the Express app.
 */
export function createV1Dispatcher(deps: V1Deps): { dispatch: (req: IncomingMessage, res: ServerResponse) => boolean; drain: () => Promise<void> } {
  /** Routed requests still running (their usage row not yet recorded), for a clean shutdown: a count, not a set of promises, to keep the hot path lean. */
  let inFlight = 0;
  let idle: (() => void)[] = [];
  const ctx: V1Context = {
    router: deps.router,
    limiter: deps.limiter,
    routingFeeUsd: deps.config.routingFeeUsd,
    contentLog: deps.config.contentLog,
    clientStallTimeoutMs: deps.config.clientStallTimeoutMs,
    protocolOf: (provider) => deps.config.providers.get(provider)?.protocol,
  };

  const routed = (endpoint: V1Request['endpoint'], handler: V1Handler, codec: IngressCodec = openAiCodec): Route => (req, res) => {
    inFlight++;
    void (async () => {
      const request = createV1Request(endpoint);
      request.session = readSessionHeaders(req.headers);
      const telemetry = deps.telemetry?.active;
      if (telemetry) request.trace.observer = request.observation = telemetry.observe(req.headers, endpoint);
      request.hints = readAgentHints(req.headers);
      try {
        request.key = authenticate(req, deps.keys);
        await handler(req, res, ctx, request);
      } catch (error) {
        answerFailure(req, res, error, request, codec);
      } finally {
        try {
          recordRequest(request, deps);
        } catch (failure) {
          // The answer is out; a usage row that cannot be recorded must not take the process down with it.
          deps.log(`Could not record usage for ${request.requestId}: ${failure instanceof Error ? (failure.stack ?? failure.message) : String(failure)}`);
        } finally {
          if (--inFlight === 0 && idle.length) {
            const waiting = idle;
            idle = [];
            for (const wake of waiting) wake();
          }
        }
      }
    })();
  };

  /** The routed handler's last resort: it never throws, so no rejection escapes the request's promise. */
  const answerFailure = (req: IncomingMessage, res: ServerResponse, error: unknown, request: V1Request, codec: IngressCodec) => {
    // A client that went away before the answer is recorded as such (nginx's 499), not as a provider failure.
    const gone = req.socket.destroyed && !res.headersSent;
    request.status = gone ? 499 : error instanceof PatchbayError ? error.status : 500;
    request.errorType = gone ? 'client_closed' : error instanceof PatchbayError ? (error.code ?? error.type) : 'internal_error';
    request.errorMessage = gone ? 'The client closed the connection before the answer.' : error instanceof PatchbayError ? error.message : 'Patchbay failed while answering (an internal error, logged by the server).';
    try {
      if (!res.headersSent) {
        for (const [name, value] of Object.entries(request.headers)) res.setHeader(name, value);
        res.setHeader('x-patchbay-latency-ms', String(elapsedMs(request)));
        if (request.trace.endpoint) res.setHeader('x-patchbay-provider', request.trace.endpoint.provider);
        // A limited key's answers all carry its rate-limit headers; admission set them already when it ran.
        if (request.key && !request.admission && KeyLimiter.isLimited(request.key)) {
          for (const [name, value] of Object.entries(deps.limiter.headers(request.key))) if (!res.hasHeader(name)) res.setHeader(name, value);
        }
      }
    } catch (failure) {
      request.status = 500;
      request.errorType = 'internal_error';
      abandonResponse(res, failure, deps.log, codec);
      return;
    }
    renderError(res, error, deps.log, codec);
  };

  const started = Math.floor(Date.now() / 1000);
  const models: Route = (req, res, path) => {
    const request = createV1Request('models');
    res.setHeader('x-patchbay-request-id', request.requestId);
    // The Anthropic SDK (models.list) sends anthropic-version on every call; the openai client never does.
    const anthropic = typeof req.headers['anthropic-version'] === 'string';
    try {
      authenticate(req, deps.keys);
      const list = listModels(deps.catalog, deps.config, started);
      const id = path === '/v1/models' ? null : decodeModelId(path.slice('/v1/models/'.length));
      const model = id === null ? null : list.find((m) => m.id === id);
      if (id !== null && !model) {
        throw new PatchbayError(`The model "${id}" does not exist; GET /v1/models lists them.`, { status: 404, type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
      }
      const body = JSON.stringify(anthropic ? encodeModelList(id === null ? list : [model!], id !== null, started) : id === null ? { object: 'list', data: list, prices_as_of: deps.catalog.pricesAsOf } : model);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-patchbay-provider': 'patchbay', 'x-patchbay-latency-ms': String(elapsedMs(request)) });
      res.end(body);
    } catch (error) {
      renderError(res, error, deps.log, anthropic ? anthropicCodec : openAiCodec);
    }
  };

  const codexModels: Route = (req, res) => {
    const request = createV1Request('models');
    res.setHeader('x-patchbay-request-id', request.requestId);
    try {
      authenticate(req, deps.keys);
      const body = JSON.stringify(listCodexModels(deps.catalog, deps.config, started));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-patchbay-provider': 'patchbay', 'x-patchbay-latency-ms': String(elapsedMs(request)) });
      res.end(body);
    } catch (error) {
      renderError(res, error, deps.log, openAiCodec);
    }
  };

  const routes = new Map<string, Route>([
    ['POST /v1/chat/completions', routed('chat', handleChatCompletions)],
    ['POST /v1/completions', routed('completions', handleCompletions)],
    ['POST /v1/embeddings', routed('embeddings', handleEmbeddings)],
    ['POST /v1/messages', routed('messages', handleMessages, anthropicCodec)],
    ['POST /v1/messages/count_tokens', routed('count_tokens', handleCountTokens, anthropicCodec)],
    ['POST /v1/responses', routed('responses', createResponsesHandler(deps.config.connectTimeoutMs), responsesCodec)],
    ['GET /v1/models', models],
    ['GET /v1/codex/models', codexModels],
  ]);

  const dispatch = (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const route = routes.get(`${req.method} ${path}`) ?? (req.method === 'GET' && path.startsWith('/v1/models/') ? models : undefined);
    if (!route) {
      if (!isAnthropicCaller(req, path)) return false;
      renderError(res, unknownAnthropicEndpoint(req.method, path), deps.log, anthropicCodec);
      return true;
    }
    route(req, res, path);
    return true;
  };
  const drain = async () => {
    while (inFlight > 0) await new Promise<void>((resolve) => idle.push(resolve));
  };
  return { dispatch, drain };
}

/**
 * A request Patchbay does not serve that comes from an Anthropic client (it sends anthropic-version
 * on every call) or asks under /v1/messages: its 404 is in Anthropic's shape, which its SDK reads.
 */
function isAnthropicCaller(req: IncomingMessage, path: string): boolean {
  return path.startsWith('/v1/') && (path.startsWith('/v1/messages') || req.headers['anthropic-version'] !== undefined);
}

function unknownAnthropicEndpoint(method: string | undefined, path: string): PatchbayError {
  return new PatchbayError(
    `Patchbay has no endpoint ${method} ${path.slice(0, 200)}. Its Anthropic Messages API is POST /v1/messages and POST /v1/messages/count_tokens; GET /v1/models lists the models (Message Batches, Files and the legacy Text Completions API are not served).`,
    { status: 404, type: 'invalid_request_error', code: 'unknown_url' },
  );
}

/** A malformed percent-escape is a model that does not exist, not a server error. */
function decodeModelId(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
