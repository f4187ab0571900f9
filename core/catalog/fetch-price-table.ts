import { PatchbayError } from '../errors/patchbay-error.ts';

/** genai-prices' whole table is ~1 MB; far more is not a price table. */
const MAX_BYTES = 16 * 1024 * 1024;
const TIMEOUT_MS = 30_000;

/** An update that could not run (offline, unreachable) or whose table was refused; the catalog in use stays. */
export class CatalogUpdateError extends PatchbayError {
  /** True when the table could not be fetched at all (no network, DNS, a refused connection). */
  readonly offline: boolean;
  constructor(message: string, offline: boolean) {
    super(message, { status: offline ? 502 : 422, type: offline ? 'server_error' : 'invalid_request_error', code: offline ? 'catalog_unreachable' : 'catalog_refused' });
    this.offline = offline;
  }
}

export interface FetchedTable {
  body: unknown;
  /** The day the server says the table was last changed (Last-Modified), else today: how old its prices are. */
  day: string;
  /** The server's ETag or Last-Modified, to name the version fetched. */
  version: string;
}

/**
 * GETs a price table as JSON, bounded in time and size. Never on a request's path: the CLI, the
 * dashboard's button and the start-up schedule call it.
 */
export async function fetchPriceTable(url: string, options: { timeoutMs?: number; now?: Date; fetch?: typeof fetch } = {}): Promise<FetchedTable> {
  const doFetch = options.fetch ?? fetch;
  let response: Response;
  try {
    response = await doFetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS), redirect: 'follow' });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new CatalogUpdateError(`Could not fetch the price table from ${url} (${why}): offline? Keeping the catalog in use.`, true);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new CatalogUpdateError(`The price table at ${url} answered HTTP ${response.status}; keeping the catalog in use.`, response.status >= 500);
  }
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_BYTES) {
    await response.body?.cancel();
    throw new CatalogUpdateError(`The price table at ${url} is ${declared} bytes, more than a price table; refused.`, false);
  }
  const text = await readBounded(response, url);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new CatalogUpdateError(`The price table at ${url} is not JSON; refused.`, false);
  }
  const modified = Date.parse(response.headers.get('last-modified') ?? '');
  const day = (Number.isNaN(modified) ? (options.now ?? new Date()) : new Date(modified)).toISOString().slice(0, 10);
  const version = response.headers.get('etag')?.replace(/^W\//, '').replace(/"/g, '') || response.headers.get('last-modified') || day;
  return { body, day, version };
}

async function readBounded(response: Response, url: string): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BYTES) {
      await reader.cancel();
      throw new CatalogUpdateError(`The price table at ${url} is more than ${MAX_BYTES} bytes, more than a price table; refused.`, false);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
