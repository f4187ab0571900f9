import express, { type NextFunction, type Request, type Response } from 'express';
import { tokensEqual } from '../secrets/admin-token.ts';
import { InvalidRequestError, PatchbayError, RateLimitError } from '../errors/patchbay-error.ts';
import {
  catalogUpdateSchema,
  createKeySchema,
  explainRouteSchema,
  newProviderSchema,
  keySettingsSchema,
  providerKeyLabelSchema,
  providerSecretSchema,
  providerSettingsSchema,
  routingSettingsSchema,
  telemetrySettingsSchema,
  usageBreakdownQuerySchema,
  usageLatencyQuerySchema,
  usageLogQuerySchema,
  usageSessionRequestsQuerySchema,
  usageSessionsQuerySchema,
  usageQuerySchema,
  usageSeriesQuerySchema,
  usageTotalsQuerySchema,
} from '../management/management-schemas.ts';
import { serveEvents } from './serve-events.ts';
import { CHALLENGE_HEADER, isChallenge, serverProof } from '../secrets/server-proof.ts';
import type { Management } from '../management/create-management.ts';
import { clearedSessionCookie, readSessionCookies, SESSION_HEADER, sessionCookie } from './dashboard-sessions.ts';
import type { DashboardSignIn } from '../stores/dashboard-sign-in.ts';
import { markAuthenticated } from './limit-connections.ts';
import { readJsonBody } from './read-json-body.ts';
import { renderError } from './render-error.ts';
import { validateBody } from './validate-body.ts';
import type { PublicOrigin } from './public-origin.ts';

export interface ApiDeps {
  management: Management;
  adminToken: string;
  /** Patchbay's own origin as a request sees it: the only one whose pages may call /api, and where links point. */
  publicOrigin: PublicOrigin;
  log: (message: string) => void;
  sessions: DashboardSignIn;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The page's half of a dashboard session, if the request carries one. */
function sessionToken(req: Request): string | undefined {
  const value = req.headers[SESSION_HEADER];
  return typeof value === 'string' ? value.trim() : undefined;
}

/**
 * Which credential a request carries: the admin token, a live dashboard session (its cookie and
 * its X-Patchbay-Session header, both), or neither.
 */
async function authenticateManagement(req: Request, deps: ApiDeps): Promise<'admin' | 'session' | null> {
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (match && tokensEqual(match[1], deps.adminToken)) return 'admin';
  const token = sessionToken(req);
  if (token === undefined) return null;
  for (const id of readSessionCookies(req.headers.cookie)) if (await deps.sessions.check(id, token)) return 'session';
  return null;
}

type Handler = (req: Request) => unknown;

/**
 * The management API for the dashboard and the CLI. It needs the admin token or a dashboard
 * session (never a /v1 key) and answers only same-origin browser requests: any web page can reach
 * localhost, and this API can mint keys and replace provider secrets.
 */
export function createApiRouter(deps: ApiDeps): express.Router {
  const router = express.Router();
  const { management } = deps;

  router.use((req: Request, res: Response, next: NextFunction) => {
    res.setHeader('cache-control', 'no-store');
    const origin = req.headers.origin;
    if (origin !== undefined && !deps.publicOrigin.isOwn(origin, req)) {
      const own = deps.publicOrigin.of(req);
      return renderError(
        res,
        new PatchbayError(
          `The management API refuses cross-origin requests (from "${origin}"); only Patchbay's own dashboard${own ? ` (${own})` : ''} may call it. Behind a reverse proxy, set server.publicUrl to the address people use (or server.trustedProxies to the proxy's address).`,
          { status: 403, type: 'permission_error', code: 'cross_origin_refused' },
        ),
        deps.log,
      );
    }
    next();
  });

  // Claude Code's connectivity probe (HEAD /api/hello, without credentials; it ignores the answer
  // but logs a failure). It says only that something answers: nothing else here opens up. With a
  // challenge (the CLI's, before it sends the admin token anywhere) it also proves that this server
  // holds the admin token, without revealing it (secrets/server-proof.ts).
  router.get('/hello', (req: Request, res: Response) => {
    const challenge = req.headers[CHALLENGE_HEADER];
    if (!isChallenge(challenge)) return void res.status(200).json({ ok: true });
    res.status(200).json({ ok: true, proof: serverProof(deps.adminToken, challenge, req.socket.localPort ?? 0) });
  });

  // Signing in is one of the two calls without credentials: the one-time code is the credential.
  // The answer holds the page's half of the session (kept in the page's own storage), the cookie the other.
  router.post('/session', async (req: Request, res: Response) => {
    try {
      const input = await readJsonBody(req);
      const code = (input as { code?: unknown } | null)?.code;
      if (typeof code !== 'string') throw new InvalidRequestError('Send {"code": "<the code after #code= in the sign-in link>"}.', 'code');
      // Wrong codes are counted per connection: a guessing loop slows itself down, never the user.
      const { id, token } = await deps.sessions.redeemCode(code, req.socket);
      res.setHeader('set-cookie', sessionCookie(id, deps.sessions.sessionMaxAgeMs));
      res.json({ token, header: 'X-Patchbay-Session', expires_in_s: Math.floor(deps.sessions.sessionMaxAgeMs / 1000) });
    } catch (error) {
      if (error instanceof RateLimitError) res.setHeader('connection', 'close');
      renderError(res, error, deps.log);
    }
  });

  router.use(async (req: Request, res: Response, next: NextFunction) => {
    let auth: Awaited<ReturnType<typeof authenticateManagement>>;
    try {
      auth = await authenticateManagement(req, deps);
    } catch (error) {
      return renderError(res, error, deps.log);
    }
    if (auth === 'session' && !SAFE_METHODS.has(req.method) && req.headers.origin === undefined) {
      // SameSite=Strict does not stop another page on this machine (any port of 127.0.0.1 is the
      // same site): a write on the strength of the cookie must prove it comes from our own page.
      return renderError(
        res,
        new PatchbayError(`A dashboard session may change things only from Patchbay's own page: ${req.method} requests with the session cookie need an Origin header equal to Patchbay's origin (browsers send it). Scripts should use the admin token instead.`, {
          status: 403,
          type: 'permission_error',
          code: 'cross_origin_refused',
        }),
        deps.log,
      );
    }
    if (!auth) {
      return renderError(
        res,
        new PatchbayError('The management API needs the admin token (the file "admin-token" in Patchbay\'s data dir) as "Authorization: Bearer <token>", or a dashboard session (sign in with the link from "patchbay ui"; the dashboard page sends its cookie and its X-Patchbay-Session header); /v1 keys are not accepted here.', {
          status: 401,
          type: 'invalid_request_error',
          code: 'invalid_admin_token',
        }),
        deps.log,
      );
    }
    res.locals.auth = auth;
    markAuthenticated(req.socket);
    next();
  });

  router.get('/session', (_req: Request, res: Response) => {
    res.json({ signed_in: true });
  });
  router.delete('/session', async (req: Request, res: Response) => {
    try {
      const token = sessionToken(req);
      for (const id of readSessionCookies(req.headers.cookie)) if (await deps.sessions.check(id, token)) await deps.sessions.end(id);
      res.setHeader('set-cookie', clearedSessionCookie());
      res.status(204).end();
    } catch (error) {
      renderError(res, error, deps.log);
    }
  });
  router.post('/session/code', async (req: Request, res: Response) => {
    if (res.locals.auth !== 'admin') {
      return renderError(res, new PatchbayError('Only the admin token may create sign-in codes ("patchbay ui" does this for you).', { status: 403, type: 'permission_error', code: 'admin_token_required' }), deps.log);
    }
    try {
      const { code, expiresAt } = await deps.sessions.createCode();
      res.json({ code, url: `${deps.publicOrigin.baseUrl(req, `http://${req.headers.host}`)}/ui/#code=${code}`, expires_at: new Date(expiresAt).toISOString() });
    } catch (error) {
      renderError(res, error, deps.log);
    }
  });

  const json = (handler: Handler) => async (req: Request, res: Response) => {
    try {
      const result = await handler(req);
      if (typeof result === 'string') {
        res.end(result);
        return;
      }
      res.json(result);
    } catch (error) {
      renderError(res, error, deps.log);
    }
  };
  const body = async <T>(req: Request, schema: Parameters<typeof validateBody>[0]) => validateBody(schema, await readJsonBody(req)) as T;
  const query = (req: Request) => validateBody(usageQuerySchema, { ...req.query });
  const param = (req: Request, name: string) => String((req.params as Record<string, string>)[name]);
  const keyLabel = (req: Request) => validateBody(providerKeyLabelSchema, { label: param(req, 'label') }).label;

  router.get('/status', json(() => management.status()));

  router.get('/keys', json(async () => ({ data: await management.listKeys() })));
  router.post('/keys', json(async (req) => management.createKey(await body(req, createKeySchema))));
  router.patch('/keys/:id', json(async (req) => management.updateKey(param(req, 'id'), await body(req, keySettingsSchema))));
  router.post('/keys/:id/rotate', json((req) => management.rotateKey(param(req, 'id'))));
  router.post('/keys/:id/revoke', json((req) => management.revokeKey(param(req, 'id'))));

  router.get('/providers', json(() => ({ data: management.listProviders() })));
  router.post('/providers', json(async (req) => management.addProvider(await body(req, newProviderSchema))));
  router.delete('/providers/:name', async (req: Request, res: Response) => {
    try {
      await management.deleteProvider(param(req, 'name'));
      res.status(204).end();
    } catch (error) {
      renderError(res, error, deps.log);
    }
  });
  router.post('/providers/:name/discover', json((req) => management.discoverProviderModels(param(req, 'name'))));
  router.get('/models', json(() => management.listModels()));
  router.get('/catalog', json(() => management.catalogStatus()));
  router.post('/catalog/update', json(async (req) => management.updateCatalog(await body(req, catalogUpdateSchema))));
  router.get('/agents', json(() => management.agents()));
  router.patch('/providers/:name', json(async (req) => management.updateProvider(param(req, 'name'), await body(req, providerSettingsSchema))));
  router.put('/providers/:name/secret', json(async (req) => management.setProviderSecret(param(req, 'name'), (await body<{ secret: string }>(req, providerSecretSchema)).secret)));
  router.delete('/providers/:name/secret', json((req) => management.deleteProviderSecret(param(req, 'name'))));
  // A labelled key (several keys per provider); /secret above is the unlabelled "default" one.
  router.put('/providers/:name/secrets/:label', json(async (req) => management.setProviderSecret(param(req, 'name'), (await body<{ secret: string }>(req, providerSecretSchema)).secret, keyLabel(req))));
  router.delete('/providers/:name/secrets/:label', json((req) => management.deleteProviderSecret(param(req, 'name'), keyLabel(req))));
  router.post('/providers/:name/test', json((req) => management.testProvider(param(req, 'name'))));

  router.get('/routing', json(() => management.getRouting()));
  router.put('/routing', json(async (req) => management.setRouting(await body(req, routingSettingsSchema))));
  router.get('/telemetry', json(() => management.getTelemetry()));
  router.put('/telemetry', json(async (req) => management.setTelemetry(await body(req, telemetrySettingsSchema))));
  router.post('/routing/explain', json(async (req) => management.explainRoute(await body(req, explainRouteSchema))));

  router.get('/usage', json((req) => {
    const q = query(req);
    return management.usageSummary(q.month, q.group_by);
  }));
  router.get('/usage/requests', json((req) => {
    // With ?session=ID: that session's requests, in the request log's shape and with its filters.
    if (req.query.session !== undefined) return management.usageSessionRequests(validateBody(usageSessionRequestsQuerySchema, { ...req.query }));
    const q = query(req);
    return management.usageRequests(q.month, q.limit);
  }));
  router.get('/usage/sessions', json((req) => management.usageSessions(validateBody(usageSessionsQuerySchema, { ...req.query }))));
  router.get('/usage/totals', json((req) => management.usageTotals(validateBody(usageTotalsQuerySchema, { ...req.query }))));
  router.get('/usage/series', json((req) => management.usageSeries(validateBody(usageSeriesQuerySchema, { ...req.query }))));
  router.get('/usage/breakdown', json((req) => management.usageBreakdown(validateBody(usageBreakdownQuerySchema, { ...req.query }))));
  router.get('/usage/latency', json((req) => management.usageLatency(validateBody(usageLatencyQuerySchema, { ...req.query }))));
  router.get('/usage/log', json((req) => management.usageLog(validateBody(usageLogQuerySchema, { ...req.query }))));
  router.get('/usage/log/:request_id', json((req) => management.usageRequest(param(req, 'request_id'))));
  router.get('/events', (req: Request, res: Response) => {
    try {
      serveEvents(req, res, (listener, onClose) => management.subscribeEvents(listener, onClose));
    } catch (error) {
      renderError(res, error, deps.log);
    }
  });
  router.get('/usage/export', async (req: Request, res: Response) => {
    try {
      const q = query(req);
      const format = q.format ?? 'csv';
      const text = await management.exportUsage(q.month, format);
      res.setHeader('content-type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json');
      res.setHeader('content-disposition', `attachment; filename="patchbay-usage-${q.month ?? 'current'}.${format}"`);
      res.end(text);
    } catch (error) {
      renderError(res, error, deps.log);
    }
  });

  router.use((req: Request, res: Response) =>
    renderError(res, new PatchbayError(`The management API has no endpoint ${req.method} /api${req.path}.`, { status: 404, type: 'invalid_request_error', code: 'unknown_url' }), deps.log),
  );
  return router;
}
