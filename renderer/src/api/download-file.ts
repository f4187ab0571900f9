import { sessionHeaders } from '../session/session-token.ts';
import { announceUnauthorized, readError } from './api-client.ts';
import { ApiError } from './api-error.ts';

/**
 * Downloads an /api answer as a file (the usage export). A plain `<a href download>` cannot send
 * the session's X-Patchbay-Session header, so the page fetches the file and hands the browser a
 * blob: URL to save, under the name the server gives in content-disposition.
 */
export async function downloadFile(path: string, fallbackName: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(`/api${path}`, { headers: sessionHeaders(), credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'Cannot reach Patchbay. Is `patchbay serve` still running?', 'network_error');
  }
  if (!res.ok) {
    const error = await readError(res);
    if (res.status === 401) announceUnauthorized(error);
    throw error;
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await res.blob());
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    link.hidden = true;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // After the click the browser holds its own reference to the blob.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }
}
