import { connect } from 'node:net';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateDashboardDir } from '../../core/http/serve-dashboard.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
const INDEX = '<!doctype html><html><head><script type="module" src="/ui/assets/index-B4x9Qz.js"></script><link rel="stylesheet" href="/ui/assets/index-C7fe2a.css"></head><body><div id="root"></div></body></html>';
const SCRIPT = 'fetch("/api/session",{method:"POST",body:JSON.stringify({code:location.hash.slice(6)})});';

/** A built dashboard as scripts/build-renderer.js lays it out (index.html, hashed files under assets/). */
function fixtureDist(): string {
  const root = mkdtempSync(join(tmpdir(), 'patchbay-dashboard-'));
  const dist = join(root, 'dist');
  mkdirSync(join(dist, 'assets'), { recursive: true });
  writeFileSync(join(dist, 'index.html'), INDEX);
  writeFileSync(join(dist, 'assets', 'index-B4x9Qz.js'), SCRIPT);
  writeFileSync(join(dist, 'assets', 'index-C7fe2a.css'), 'body{margin:0}');
  writeFileSync(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  // Beside the dist folder, a secret a traversal would reach for.
  writeFileSync(join(root, 'secret.txt'), 'TOP-SECRET-OUTSIDE-DIST');
  return dist;
}

/** A raw request line, sent as written: clients (fetch, http.request) would normalise "..". */
function rawGet(port: number, target: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d) => (text += d));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]), text }));
    socket.on('error', reject);
  });
}

function expectDashboardHeaders(headers: Headers): void {
  expect(headers.get('content-security-policy')).toBe(CSP);
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('x-frame-options')).toBe('DENY');
}

describe('the dashboard served at /ui', () => {
  let dist: string;
  let pb: TestPatchbay;
  let base: string;
  const seen: string[] = [];
  const get = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${base}${path}`, { redirect: 'manual', ...init });
    const text = await response.text();
    seen.push(text, JSON.stringify([...response.headers]));
    return { response, text };
  };

  beforeAll(async () => {
    dist = fixtureDist();
    pb = await startPatchbay({ dashboard: { dir: dist } });
    base = pb.patchbay.url;
  });
  afterAll(async () => {
    await pb?.stop();
    rmSync(join(dist, '..'), { recursive: true, force: true });
  });

  it('serves index.html at /ui/, never cached stale, with the strict CSP and security headers', async () => {
    const { response, text } = await get('/ui/');
    expect(response.status).toBe(200);
    expect(text).toBe(INDEX);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expectDashboardHeaders(response.headers);
  });

  it('serves index.html for deep links without a file extension (the app routes them)', async () => {
    for (const path of ['/ui/keys', '/ui/usage/requests', '/ui/providers/openai?tab=secret']) {
      const { response, text } = await get(path);
      expect(response.status, path).toBe(200);
      expect(text).toBe(INDEX);
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expectDashboardHeaders(response.headers);
    }
  });

  it('serves hashed assets as immutable, with their content types', async () => {
    const js = await get('/ui/assets/index-B4x9Qz.js');
    expect(js.response.status).toBe(200);
    expect(js.text).toBe(SCRIPT);
    expect(js.response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expectDashboardHeaders(js.response.headers);
    const css = await get('/ui/assets/index-C7fe2a.css');
    expect(css.response.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const icon = await get('/ui/favicon.svg');
    expect(icon.response.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.response.headers.get('cache-control')).toBe('no-cache');
  });

  it('answers a missing asset with a 404, not index.html', async () => {
    const { response, text } = await get('/ui/assets/index-gone.js');
    expect(response.status).toBe(404);
    expect(JSON.parse(text).error.code).toBe('unknown_url');
    expectDashboardHeaders(response.headers);
  });

  it('redirects /, /dashboard and /ui to /ui/', async () => {
    for (const path of ['/', '/dashboard', '/ui']) {
      const { response } = await get(path);
      expect(response.status, path).toBe(302);
      expect(response.headers.get('location')).toBe('/ui/');
    }
  });

  it('never serves a file outside the dashboard folder, however the path is written', async () => {
    const targets = [
      '/ui/../secret.txt',
      '/ui/%2e%2e/secret.txt',
      '/ui/%2E%2E%2Fsecret.txt',
      '/ui/assets/..%2f..%2fsecret.txt',
      '/ui/..%5csecret.txt',
      '/ui/%2e%2e%2f%2e%2e%2fadmin-token',
      '/ui/..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd',
      '/ui/%252e%252e%252fsecret.txt',
      '/ui/%00index.html',
      `/ui/${'%2e%2e%2f'.repeat(8)}${pb.dataDir.slice(1).split('/').join('%2f')}%2fadmin-token`,
    ];
    for (const target of targets) {
      const { status, text } = await rawGet(pb.patchbay.port, target);
      expect(status, target).toBeGreaterThanOrEqual(400);
      expect(status, target).toBeLessThan(500);
      expect(text, target).not.toContain('TOP-SECRET-OUTSIDE-DIST');
      expect(text, target).not.toContain(pb.patchbay.adminToken);
      expect(text, target).not.toMatch(/root:.*:0:0:/);
      seen.push(text);
    }
  });

  it('answers other methods with a 405', async () => {
    const { response, text } = await get('/ui/', { method: 'POST', body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(JSON.parse(text).error.code).toBe('method_not_allowed');
  });

  it('never puts the admin token in any /ui answer or in the served files', async () => {
    await get('/ui/');
    await get('/ui/keys');
    expect(seen.length).toBeGreaterThan(10);
    for (const text of seen) expect(text).not.toContain(pb.patchbay.adminToken);
    const files = (dir: string): string[] => readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));
    for (const file of files(dist)) expect(readFileSync(file, 'utf8')).not.toContain(pb.patchbay.adminToken);
  });
});

describe('the dashboard before it is built', () => {
  it('answers /ui/ with a page that says how to build it, under the same CSP and without inline script', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'patchbay-unbuilt-'));
    const pb = await startPatchbay({ dashboard: { dir: join(empty, 'dist') } });
    try {
      for (const path of ['/ui/', '/ui/keys']) {
        const response = await fetch(`${pb.patchbay.url}${path}`);
        const text = await response.text();
        expect(response.status).toBe(503);
        expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(text).toMatch(/not built/);
        expect(text).toContain('npm start');
        expect(text).not.toMatch(/<script|on\w+=/i);
        expectDashboardHeaders(response.headers);
      }
    } finally {
      await pb.stop();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('finding the built dashboard', () => {
  it('finds renderer/dist from the sources and from core compiled into dist/ inside the project', () => {
    const project = mkdtempSync(join(tmpdir(), 'patchbay-layout-'));
    try {
      mkdirSync(join(project, 'renderer'), { recursive: true });
      mkdirSync(join(project, 'core', 'http'), { recursive: true });
      mkdirSync(join(project, 'dist', 'core', 'http'), { recursive: true });
      expect(locateDashboardDir(join(project, 'core', 'http'))).toBe(join(project, 'renderer', 'dist'));
      expect(locateDashboardDir(join(project, 'dist', 'core', 'http'))).toBe(join(project, 'renderer', 'dist'));
      expect(locateDashboardDir()).toBe(join(import.meta.dirname, '..', '..', 'renderer', 'dist'));
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
