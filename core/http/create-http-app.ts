import express, { type NextFunction, type Request, type Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PatchbayError } from '../errors/patchbay-error.ts';
import type { ManagementService } from '../management/management-service.ts';
import { createApiRouter } from './create-api-router.ts';
import type { HostGuard } from './host-guard.ts';
import { renderError } from './render-error.ts';
import { createV1Dispatcher, type V1Deps } from './v1/create-v1-dispatcher.ts';

export interface HttpDeps extends V1Deps {
  hostGuard: HostGuard;
  management: ManagementService;
  adminToken: string;
}

/**
 * The server's request listener. Every request first passes the Host/Origin guard; /v1 goes to its
 * lean dispatcher; everything else (the management API, unknown paths) to the Express app, which
 * also holds the one error renderer for what it serves.
 */
export function createRequestListener(deps: HttpDeps): { listener: (req: IncomingMessage, res: ServerResponse) => void; drain: () => Promise<void> } {
  const v1 = createV1Dispatcher(deps);
  const app = createExpressApp(deps);
  return {
    listener: (req, res) => {
      if (!guard(req, res, deps)) return;
      if (v1.dispatch(req, res)) return;
      app(req, res);
    },
    drain: v1.drain,
  };
}

/** Host and Origin checks, and CORS preflights for allowed origins. Returns false when it answered. */
function guard(req: IncomingMessage, res: ServerResponse, deps: HttpDeps): boolean {
  try {
    deps.hostGuard.check(req);
  } catch (error) {
    renderError(res, error, deps.log);
    return false;
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
      return false;
    }
  }
  return true;
}

function createExpressApp(deps: HttpDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');
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
