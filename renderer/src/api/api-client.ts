import { clearSessionToken, sessionHeaders } from '../session/session-token.ts';
import { ApiError } from './api-error.ts';

type UnauthorizedListener = (error: ApiError) => void;
const unauthorizedListeners = new Set<UnauthorizedListener>();

/**
 * Called whenever /api answers 401: the session expired or was ended, so the app goes back to the
 * sign-in screen from wherever it was. Returns the unsubscribe function.
 */
export function onUnauthorized(listener: UnauthorizedListener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/** A 401 from any /api call (the live stream's too): the session is over; forget its page half. */
export function announceUnauthorized(error: ApiError): void {
  clearSessionToken();
  for (const listener of unauthorizedListeners) listener(error);
}

export interface RequestOptions {
  /** Do not announce a 401 (the session probe itself expects one when signed out). */
  quiet401?: boolean;
  signal?: AbortSignal;
}

export async function readError(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { message?: string; type?: string; param?: string | null; code?: string | null } };
    if (body.error && typeof body.error.message === 'string') {
      return new ApiError(res.status, body.error.message, body.error.type, body.error.param ?? null, body.error.code ?? null);
    }
  } catch {
    // Not JSON: a proxy or a crashed server; say what we got.
  }
  const snippet = text.trim().slice(0, 200);
  return new ApiError(res.status, `Patchbay answered ${res.status} ${res.statusText}${snippet ? `: ${snippet}` : ''}.`);
}

/**
 * The one way the dashboard calls /api: the session cookie goes along (same origin) and the page's
 * half of the session in X-Patchbay-Session; the page never holds the admin token. Throws ApiError
 * for every non-2xx answer and for a network failure.
 */
export async function apiRequest<T>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`/api${path}`, {
      method,
      credentials: 'same-origin',
      headers: { ...sessionHeaders(), accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, 'Cannot reach Patchbay. Is `patchbay serve` still running?', 'network_error');
  }
  if (!res.ok) {
    const error = await readError(res);
    if (res.status === 401 && !options.quiet401) announceUnauthorized(error);
    throw error;
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export const api = {
  get: <T>(path: string, options?: RequestOptions) => apiRequest<T>('GET', path, undefined, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => apiRequest<T>('POST', path, body ?? {}, options),
  put: <T>(path: string, body: unknown, options?: RequestOptions) => apiRequest<T>('PUT', path, body, options),
  patch: <T>(path: string, body: unknown, options?: RequestOptions) => apiRequest<T>('PATCH', path, body, options),
  delete: <T>(path: string, options?: RequestOptions) => apiRequest<T>('DELETE', path, undefined, options),
};

/** A query string from the set values only. */
export function toQuery(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
