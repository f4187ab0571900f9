import { vi } from 'vitest';

type Handler = (init: { method: string; body: unknown; url: URL }) => Response | Promise<Response>;

/**
 * Stands in for core's /api in jsdom component tests (there is no server in jsdom): routes
 * "METHOD /api/path" to handlers returning real Response objects, and records every call.
 * Integration with the real server is covered by core's tests against the same contract.
 */
export function installFakeApi(routes: Record<string, Handler>) {
  const calls: { method: string; path: string; body: unknown }[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://127.0.0.1:8790');
    const method = (init.method ?? 'GET').toUpperCase();
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    calls.push({ method, path: url.pathname + url.search, body });
    const handler = routes[`${method} ${url.pathname}`];
    if (!handler) return json(404, { error: { message: `no route ${method} ${url.pathname}`, type: 'invalid_request_error', param: null, code: 'unknown_url' } });
    return handler({ method, body, url });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls };
}

export const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
export const unauthorized = () => json(401, { error: { message: 'Sign in again.', type: 'invalid_request_error', param: null, code: 'not_signed_in' } });
