import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';
import type { HttpDeps } from './http-deps.ts';
import { abandonResponse, renderError } from './render-error.ts';
import { serveLifecycle } from './serve-lifecycle.ts';
import { createV1Dispatcher } from './v1/create-v1-dispatcher.ts';
import { createResponsesWebSocket } from './v1/serve-responses-websocket.ts';

/**
 * The server's request listener. GET /health and a replica's shutdown are answered first (a proxy's
 * health check needs no name the guard knows); every other request passes the Host/Origin guard; /v1 goes to its
 * lean dispatcher; everything else (the management API, unknown paths) to the Express app, which
 * also holds the one error renderer for what it serves. Express is loaded on the first such
 * request, not at start: a router that only serves /v1 never pays its start-up time or memory.
 */
export function createRequestListener(deps: HttpDeps): {
  listener: (req: IncomingMessage, res: ServerResponse) => void;
  /** The server's 'upgrade' listener: the Responses API over a WebSocket. */
  upgrade: ReturnType<typeof createResponsesWebSocket>['upgrade'];
  /** Ends the WebSockets as the server stops (Node's server.close() waits for upgraded sockets too). */
  closeWebSockets: (graceMs: number) => Promise<void>;
  drain: () => Promise<void>;
} {
  const v1 = createV1Dispatcher(deps);
  const webSockets = createResponsesWebSocket(deps);
  let app: Promise<Express> | null = null;
  const loadApp = () => (app ??= import('./create-express-app.ts').then((module) => module.createExpressApp(deps)));
  return {
    listener: (req, res) => {
      // A throw here would be an uncaught exception from the server's 'request' event: the process would exit.
      try {
        if (serveLifecycle(req, res, deps.lifecycle, deps.log)) return;
        if (!guard(req, res, deps)) return;
        if (v1.dispatch(req, res)) return;
        // Prometheus's scrape: its own token, checked by telemetry; an unknown path while it is off.
        if (req.url?.startsWith('/metrics') && deps.telemetry?.serveMetrics(req, res)) return;
      } catch (error) {
        renderError(res, error, deps.log);
        return;
      }
      loadApp()
        .then(
          (express) => express(req, res),
          (error: unknown) => renderError(res, error, deps.log),
        )
        .catch((error: unknown) => abandonResponse(res, error, deps.log));
    },
    upgrade: webSockets.upgrade,
    closeWebSockets: webSockets.close,
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
