import express, { type NextFunction, type Request, type Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Catalog } from '../catalog/load-catalog.ts';
import type { PatchbayConfig } from '../config/load-config.ts';
import { PatchbayError } from '../errors/patchbay-error.ts';
import { KeyLimiter } from '../keys/key-limiter.ts';
import type { KeyStore } from '../keys/key-store.ts';
import type { Router } from '../routing/router.ts';
import type { UsageStore } from '../usage/usage-store.ts';
import type { ManagementService } from '../management/management-service.ts';
import { authenticate } from './authenticate.ts';
import { createApiRouter } from './create-api-router.ts';
import type { HostGuard } from './host-guard.ts';
import { renderError } from './render-error.ts';
import { handleChatCompletions } from './v1/handle-chat-completions.ts';
import { handleCompletions } from './v1/handle-completions.ts';
import { handleEmbeddings } from './v1/handle-embeddings.ts';
import { listModels } from './v1/list-models.ts';
import type { V1Context } from './v1/serve-routed.ts';
import { createV1Request, toUsageRecord, type V1Request } from './v1/v1-request.ts';

export interface HttpDeps {
  config: PatchbayConfig;
  catalog: Catalog;
  router: Router;
  keys: KeyStore;
  limiter: KeyLimiter;
  usage: UsageStore;
  hostGuard: HostGuard;
  management: ManagementService;
  adminToken: string;
  log: (message: string) => void;
}

type V1Handler = (req: IncomingMessage, res: ServerResponse, ctx: V1Context, request: V1Request) => Promise<void>;

/** The Express app: host and origin checks first, then /v1, then one error renderer. */
export function createHttpApp(deps: HttpDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');

  app.use((req: Request, res: Response, next: NextFunction) => {
    try {
      deps.hostGuard.check(req);
    } catch (error) {
      renderError(res, error, deps.log);
      return;
    }
    const origin = req.headers.origin;
    if (origin) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('vary', 'Origin');
      if (req.method === 'OPTIONS') {
        res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
        res.setHeader('access-control-allow-headers', req.headers['access-control-request-headers'] ?? 'authorization, content-type');
        res.setHeader('access-control-max-age', '600');
        res.statusCode = 204;
        res.end();
        return;
      }
    }
    next();
  });

  const v1: V1Context = { router: deps.router, limiter: deps.limiter, routingFeeUsd: deps.config.routingFeeUsd, contentLog: deps.config.contentLog };
  const routed = (endpoint: V1Request['endpoint'], handler: V1Handler) => async (req: Request, res: Response) => {
    const request = createV1Request(endpoint);
    res.setHeader('x-patchbay-request-id', request.requestId);
    try {
      request.key = authenticate(req, deps.keys);
      if (KeyLimiter.isLimited(request.key)) for (const [name, value] of Object.entries(deps.limiter.headers(request.key))) res.setHeader(name, value);
      await handler(req, res, v1, request);
    } catch (error) {
      request.status = error instanceof PatchbayError ? error.status : 500;
      request.errorType = error instanceof PatchbayError ? (error.code ?? error.type) : 'internal_error';
      res.setHeader('x-patchbay-latency-ms', String(Math.round((performance.now() - request.startedAt) * 100) / 100));
      if (request.trace.endpoint && !res.headersSent) res.setHeader('x-patchbay-provider', request.trace.endpoint.provider);
      renderError(res, error, deps.log);
    } finally {
      const row = toUsageRecord(request, deps.config.routingFeeUsd);
      request.admission?.settle({ tokens: row.totalTokens, costUsd: row.costUsd });
      deps.usage.record(row);
      if (request.content) deps.usage.recordContent({ requestId: request.requestId, ts: request.startedWall, ...request.content });
    }
  };

  app.post('/v1/chat/completions', routed('chat', handleChatCompletions));
  app.post('/v1/completions', routed('completions', handleCompletions));
  app.post('/v1/embeddings', routed('embeddings', handleEmbeddings));

  const started = Math.floor(Date.now() / 1000);
  app.get('/v1/models', (req: Request, res: Response) => {
    const request = createV1Request('models');
    res.setHeader('x-patchbay-request-id', request.requestId);
    try {
      authenticate(req, deps.keys);
      const body = JSON.stringify({ object: 'list', data: listModels(deps.catalog, deps.config, started) });
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-patchbay-provider', 'patchbay');
      res.setHeader('x-patchbay-latency-ms', String(Math.round((performance.now() - request.startedAt) * 100) / 100));
      res.end(body);
    } catch (error) {
      renderError(res, error, deps.log);
    }
  });
  app.get('/v1/models/{*model}', (req: Request, res: Response) => {
    try {
      authenticate(req, deps.keys);
      const id = (req.params as { model: string[] }).model.join('/');
      const model = listModels(deps.catalog, deps.config, started).find((m) => m.id === id);
      if (!model) throw new PatchbayError(`The model "${id}" does not exist; GET /v1/models lists them.`, { status: 404, type: 'invalid_request_error', code: 'model_not_found', param: 'model' });
      res.json(model);
    } catch (error) {
      renderError(res, error, deps.log);
    }
  });

  app.use(
    '/api',
    createApiRouter({
      management: deps.management,
      adminToken: deps.adminToken,
      isOwnOrigin: (origin, host) => origin.toLowerCase() === `http://${(host ?? '').toLowerCase()}`,
      log: deps.log,
    }),
  );

  app.use((req: Request, res: Response) => {
    renderError(
      res,
      new PatchbayError(`Patchbay has no endpoint ${req.method} ${req.path}. The API lives under /v1: POST /v1/chat/completions, /v1/completions, /v1/embeddings; GET /v1/models.`, {
        status: 404,
        type: 'invalid_request_error',
        code: 'unknown_url',
      }),
      deps.log,
    );
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => renderError(res, error, deps.log));
  return app;
}
