import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Response } from 'express';
import { PatchbayError } from '../errors/patchbay-error.ts';
import { renderError } from './render-error.ts';

/**
 * Sent with every /ui answer. The dashboard holds a session that can mint keys and replace provider
 * secrets, so no inline script, no foreign script or connection, no framing (clickjacking).
 */
export const DASHBOARD_HEADERS: Record<string, string> = {
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
};

/** Vite names the files under assets/ after a hash of their content: they never change, so cache them for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Patchbay dashboard not built</title></head>
<body><h1>The Patchbay dashboard is not built</h1>
<p>The router itself works: its API is at <code>/v1</code>. To build the dashboard, stop Patchbay and start it with
<code>npm start</code> from the project folder, which builds the dashboard into <code>renderer/dist/</code>.</p>
</body></html>
`;

/**
 * The built dashboard's folder. Found from this file's place: `core/http/` in the sources, or
 * `<out>/core/http/` when core runs compiled (scripts/build-core.js, `dist/` inside the project):
 * the nearest folder above that holds `renderer/` is the package root.
 */
export function locateDashboardDir(fromDir = dirname(fileURLToPath(import.meta.url))): string {
  let dir = resolve(fromDir);
  for (;;) {
    if (existsSync(join(dir, 'renderer'))) return join(dir, 'renderer', 'dist');
    const parent = dirname(dir);
    if (parent === dir) return resolve(fromDir, '..', '..', 'renderer', 'dist');
    dir = parent;
  }
}

/**
 * Serves the built dashboard (a single-page app) under /ui: files by path, and index.html for any
 * path without a file extension, so a deep link (/ui/keys) loads the app, which routes it.
 */
export function createDashboardRouter(options: { dir: string; log: (message: string) => void }): express.Router {
  const root = resolve(options.dir);
  const router = express.Router({ strict: true });

  router.use(async (req: Request, res: Response) => {
    for (const [name, value] of Object.entries(DASHBOARD_HEADERS)) res.setHeader(name, value);
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        throw new PatchbayError(`The dashboard at /ui answers only GET; ${req.method} is not allowed.`, { status: 405, type: 'invalid_request_error', code: 'method_not_allowed', headers: { allow: 'GET, HEAD' } });
      }
      // originalUrl, not the routed path: "/ui" must become "/ui/" so that relative asset URLs resolve.
      if (req.path === '/' && !req.originalUrl.split('?')[0].endsWith('/')) {
        res.redirect(302, '/ui/');
        return;
      }
      const relative = decodePath(req.path);
      const file = relative === '' || !extname(relative) ? 'index.html' : relative;
      const absolute = resolve(root, file);
      // The path is decoded first, so %2e%2e%2f and friends are judged as the ".." they mean.
      if (!absolute.startsWith(root + sep)) throw notFound(req.path);
      const isIndex = file === 'index.html';
      const content = await readIfFile(absolute);
      if (content === null) {
        if (isIndex) return sendNotBuilt(res, req.method);
        throw notFound(req.path);
      }
      res.statusCode = 200;
      res.setHeader('content-type', CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream');
      res.setHeader('cache-control', file.startsWith('assets/') ? IMMUTABLE : 'no-cache');
      res.setHeader('content-length', content.length);
      res.end(req.method === 'HEAD' ? undefined : content);
    } catch (error) {
      renderError(res, error, options.log);
    }
  });
  return router;
}

/** The request path without its leading slash, percent-decoded; refuses what no real file name holds. */
function decodePath(path: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    throw notFound(path);
  }
  if (decoded.includes('\0') || decoded.includes('\\') || decoded.split('/').some((segment) => segment.startsWith('.'))) throw notFound(path);
  return decoded.replace(/^\/+/, '');
}

async function readIfFile(path: string): Promise<Buffer | null> {
  try {
    if (!(await stat(path)).isFile()) return null;
    return await readFile(path);
  } catch (error) {
    if (['ENOENT', 'ENOTDIR', 'EISDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return null;
    throw error;
  }
}

function sendNotBuilt(res: Response, method: string): void {
  res.statusCode = 503;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('content-length', Buffer.byteLength(NOT_BUILT_PAGE));
  res.end(method === 'HEAD' ? undefined : NOT_BUILT_PAGE);
}

function notFound(path: string): PatchbayError {
  return new PatchbayError(`The dashboard has no file ${JSON.stringify(path)}.`, { status: 404, type: 'invalid_request_error', code: 'unknown_url' });
}
