import { render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App, createQueryClient } from '../app.tsx';
import { installFakeApi, json, unauthorized } from '../test-support/fake-api.ts';
import { readSessionToken, saveSessionToken } from './session-token.ts';
import { readSignInCode, startSession } from './sign-in.ts';

beforeEach(() => {
  window.history.replaceState(null, '', '/ui/');
  window.localStorage.clear();
});
afterEach(() => vi.unstubAllGlobals());

describe('signing in', () => {
  it('reads the code from the fragment only', () => {
    expect(readSignInCode('#code=abc123')).toBe('abc123');
    expect(readSignInCode('#other=1')).toBeNull();
    expect(readSignInCode('')).toBeNull();
  });

  it('exchanges #code= for a session, keeps its page half in localStorage, then removes the code from the address bar', async () => {
    window.history.replaceState(null, '', '/ui/keys?x=1#code=one-time-code');
    const { calls } = installFakeApi({ 'POST /api/session': () => json(200, { token: 'page-half-of-the-session' }) });
    await expect(startSession()).resolves.toEqual({ signedIn: true });
    expect(calls).toEqual([{ method: 'POST', path: '/api/session', body: { code: 'one-time-code' } }]);
    expect(window.localStorage.getItem('patchbay.session')).toBe('page-half-of-the-session');
    expect(window.location.hash).toBe('');
    expect(window.location.pathname + window.location.search).toBe('/ui/keys?x=1');
  });

  it('sends the page half as X-Patchbay-Session on every call; a 401 forgets it', async () => {
    saveSessionToken('stored-token');
    const seen: (string | null)[] = [];
    vi.stubGlobal('fetch', vi.fn(async (_input: RequestInfo | URL, init: RequestInit = {}) => {
      seen.push(new Headers(init.headers).get('x-patchbay-session'));
      return seen.length === 1 ? json(200, { signed_in: true }) : unauthorized();
    }));
    await expect(startSession()).resolves.toEqual({ signedIn: true });
    expect(seen).toEqual(['stored-token']);
    expect(readSessionToken()).toBe('stored-token');
    await expect(startSession()).resolves.toEqual({ signedIn: false });
    expect(seen).toEqual(['stored-token', 'stored-token']);
    expect(readSessionToken()).toBeNull();
  });

  it('a used or expired code is removed too, and says to ask for a new link', async () => {
    window.history.replaceState(null, '', '/ui/#code=used');
    installFakeApi({ 'POST /api/session': unauthorized });
    const state = await startSession();
    expect(state).toMatchObject({ signedIn: false, message: expect.stringContaining('patchbay ui') });
    expect(window.location.hash).toBe('');
  });

  it('without a code and without a session, shows how to get a sign-in link', async () => {
    const { calls } = installFakeApi({ 'GET /api/session': unauthorized });
    render(<App queryClient={createQueryClient()} />);
    expect(await screen.findByRole('heading', { name: 'Sign in to Patchbay' })).toBeTruthy();
    expect(screen.getByText('patchbay ui')).toBeTruthy();
    // Nothing stored: nothing to ask the server.
    expect(calls).toEqual([]);
  });

  it('a 401 on any later call returns to the sign-in screen', async () => {
    saveSessionToken('stored-token');
    installFakeApi({
      'GET /api/session': () => json(200, { signed_in: true }),
      'GET /api/status': unauthorized,
      'GET /api/keys': unauthorized,
      'GET /api/usage/totals': unauthorized,
    });
    render(<App queryClient={createQueryClient()} />);
    // The page chunk loads first (lazy), then its calls meet the 401: slow on a busy machine.
    expect(await screen.findByRole('heading', { name: 'Sign in to Patchbay' })).toBeTruthy();
    expect(screen.getByRole('alert').textContent).toMatch(/session ended/);
  });
});
