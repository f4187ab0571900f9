import { api } from '../api/api-client.ts';
import { ApiError } from '../api/api-error.ts';
import { clearSessionToken, readSessionToken, saveSessionToken } from './session-token.ts';

export type SessionState = { signedIn: true } | { signedIn: false; message?: string };

/** The one-time code from `#code=...`, or null. */
export function readSignInCode(hash: string): string | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const code = params.get('code');
  return code && code.trim() ? code.trim() : null;
}

/**
 * Signs in on page load: exchanges a `#code=` from the sign-in link for a session (a cookie, and a
 * token kept in this origin's localStorage), then takes the code out of the address bar (it is
 * single-use, but it should not linger in history or be copied along with the URL). Without a
 * code, asks whether the stored session is still good (a reload, another tab).
 */
export async function startSession(location: Location = window.location, history: History = window.history): Promise<SessionState> {
  const code = readSignInCode(location.hash);
  if (code) {
    try {
      const { token } = await api.post<{ token: string }>('/session', { code }, { quiet401: true });
      saveSessionToken(token);
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
  if (!readSessionToken()) return { signedIn: false };
  try {
    await api.get('/session', { quiet401: true });
    return { signedIn: true };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      clearSessionToken();
      return { signedIn: false };
    }
    throw error;
  }
}
