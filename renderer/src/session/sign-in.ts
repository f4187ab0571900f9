import { api } from '../api/api-client.ts';
import { ApiError } from '../api/api-error.ts';

export type SessionState = { signedIn: true } | { signedIn: false; message?: string };

/** The one-time code from `#code=...`, or null. */
export function readSignInCode(hash: string): string | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const code = params.get('code');
  return code && code.trim() ? code.trim() : null;
}

/**
 * Signs in on page load: exchanges a `#code=` from the sign-in link for the session cookie, then
 * takes the code out of the address bar (it is single-use, but it should not linger in history or
 * be copied along with the URL). Without a code, asks whether the cookie is still good.
 */
export async function startSession(location: Location = window.location, history: History = window.history): Promise<SessionState> {
  const code = readSignInCode(location.hash);
  if (code) {
    try {
      await api.post('/session', { code }, { quiet401: true });
      return { signedIn: true };
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        return { signedIn: false, message: 'That sign-in link was already used or has expired. Ask for a new one with `patchbay ui`.' };
      }
      throw error;
    } finally {
      history.replaceState(history.state, '', `${location.pathname}${location.search}`);
    }
  }
  try {
    await api.get('/session', { quiet401: true });
    return { signedIn: true };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return { signedIn: false };
    throw error;
  }
}
