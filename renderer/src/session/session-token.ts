/**
 * The page's half of the dashboard session (the other half is an HttpOnly cookie). It lives in
 * localStorage, which belongs to this exact origin (scheme, host and port): another server on
 * 127.0.0.1 receives the cookie when the browser visits it (cookies ignore ports) but can never
 * read this, so the cookie alone opens nothing. localStorage rather than sessionStorage so that a
 * reload and a new tab of the same browser stay signed in; signing out clears it for all tabs.
 */
const STORAGE_KEY = 'patchbay.session';

export const SESSION_HEADER = 'X-Patchbay-Session';

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    // Storage turned off (a privacy setting): the session then lasts as long as the page.
    return null;
  }
}

let inMemory: string | null = null;

export function readSessionToken(): string | null {
  return storage()?.getItem(STORAGE_KEY) ?? inMemory;
}

export function saveSessionToken(token: string): void {
  inMemory = token;
  storage()?.setItem(STORAGE_KEY, token);
}

export function clearSessionToken(): void {
  inMemory = null;
  storage()?.removeItem(STORAGE_KEY);
}

/** The header every /api call sends, or none when signed out. */
export function sessionHeaders(): Record<string, string> {
  const token = readSessionToken();
  return token ? { [SESSION_HEADER]: token } : {};
}
