import express, { type NextFunction, type Request, type Response } from 'express';
import { InvalidRequestError, PatchbayError } from '../errors/patchbay-error.ts';
import { createApiRouter } from './create-api-router.ts';
import type { HttpDeps } from './http-deps.ts';
import { renderError } from './render-error.ts';
import { createDashboardRouter, locateDashboardDir } from './serve-dashboard.ts';

/** The Express app for everything outside /v1: the management API under /api, the dashboard under /ui, and a 404 in OpenAI's shape for the rest. */
export function createExpressApp(deps: HttpDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');
  app.use(
    '/api',
    createApiRouter({
      management: deps.management,
      adminToken: deps.adminToken,
      publicOrigin: deps.publicOrigin,
      log: deps.log,
      sessions: deps.sessions,
    }),
  );
  // The dashboard is served here, off the /v1 path: its requests never cost /v1 anything.
  app.use('/ui', createDashboardRouter({ dir: deps.dashboardDir ?? locateDashboardDir(), log: deps.log }));
  app.get(['/', '/dashboard', '/dashboard/'], (_req: Request, res: Response) => res.redirect(302, '/ui/'));
  app.use((req: Request, res: Response) => {
    renderError(
      res,
      new PatchbayError(`Patchbay has no endpoint ${req.method} ${req.path}. The API lives under /v1: POST /v1/chat/completions, /v1/responses, /v1/messages, /v1/completions, /v1/embeddings; GET /v1/models. The dashboard is at /ui/.`, {
        status: 404,
        type: 'invalid_request_error',
        code: 'unknown_url',
      }),
      deps.log,
    );
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => renderError(res, asClientError(error, req), deps.log));
  return app;
}

/**
 * Express's router decodes path parameters itself and fails with a URIError on a malformed
 * percent-escape (`/api/keys/%E0%A4%A`): the client's mistake, so a 400 saying what to fix.
 */
function asClientError(error: unknown, req: Request): unknown {
  if (error instanceof URIError) {
    return new InvalidRequestError(`The URL path ${JSON.stringify(req.originalUrl.split('?')[0].slice(0, 200))} has a malformed percent-escape; write "%" as "%25" and encode other characters as UTF-8 (encodeURIComponent).`, null, 'invalid_url');
  }
  return error;
}
