import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Suspense, lazy, useCallback, useEffect, useState } from 'react';
import { api, onUnauthorized } from './api/api-client.ts';
import { ApiError } from './api/api-error.ts';
import { NavigationContext } from './layout/navigation-context.ts';
import { Sidebar } from './layout/sidebar.tsx';
import { useRoute, type PagePath } from './layout/use-route.ts';
import { SignInScreen } from './session/sign-in-screen.tsx';
import { clearSessionToken } from './session/session-token.ts';
import { startSession, type SessionState } from './session/sign-in.ts';

// One chunk per page: the first load carries only the shell and the page it opens on.
const pages: Record<PagePath, React.LazyExoticComponent<() => React.JSX.Element>> = {
  overview: lazy(() => import('./pages/overview/overview-page.tsx')),
  providers: lazy(() => import('./pages/providers/providers-page.tsx')),
  routing: lazy(() => import('./pages/routing/routing-page.tsx')),
  keys: lazy(() => import('./pages/keys/keys-page.tsx')),
  usage: lazy(() => import('./pages/usage/usage-page.tsx')),
  requests: lazy(() => import('./pages/requests/requests-page.tsx')),
  sessions: lazy(() => import('./pages/sessions/sessions-page.tsx')),
};

export function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // A 4xx will not fix itself by asking again; a network blip might.
        retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
        refetchOnWindowFocus: true,
        staleTime: 5_000,
      },
    },
  });
}

// One exchange per page load: the code is single-use, and StrictMode runs effects twice in development.
let sessionStart: Promise<SessionState> | null = null;

type Session = SessionState | { loading: true } | { failed: string };

export function App({ queryClient }: { queryClient: QueryClient }) {
  const [session, setSession] = useState<Session>({ loading: true });
  const [page, navigate] = useRoute();

  useEffect(() => {
    let cancelled = false;
    const pending = (sessionStart ??= startSession());
    // Forget it once settled: a later mount (a sign-out, a test) asks again.
    void pending.finally(() => {
      if (sessionStart === pending) sessionStart = null;
    }).catch(() => undefined);
    pending.then(
      (state) => !cancelled && setSession(state),
      (error: unknown) => !cancelled && setSession({ failed: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      cancelled = true;
    };
  }, []);

  useEffect(
    () =>
      onUnauthorized(() => {
        // The cached answers belong to the ended session.
        queryClient.clear();
        setSession({ signedIn: false, message: 'Your session ended. Open a new sign-in link to continue.' });
      }),
    [queryClient],
  );

  useEffect(() => {
    const title = page.charAt(0).toUpperCase() + page.slice(1);
    document.title = `${title} · Patchbay`;
  }, [page]);

  const signOut = useCallback(async () => {
    await api.delete('/session').catch(() => undefined);
    clearSessionToken();
    queryClient.clear();
    setSession({ signedIn: false, message: 'Signed out.' });
  }, [queryClient]);

  if ('loading' in session) return <p className="centered" role="status">Connecting to Patchbay…</p>;
  if ('failed' in session) {
    return (
      <main className="sign-in" id="main">
        <div className="card sign-in-card">
          <h1>Patchbay is not answering</h1>
          <p role="alert">{session.failed}</p>
        </div>
      </main>
    );
  }
  if (!session.signedIn) return <SignInScreen message={session.message} />;

  const Page = pages[page];
  return (
    <QueryClientProvider client={queryClient}>
      <NavigationContext.Provider value={navigate}>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <div className="layout">
          <Sidebar current={page} onNavigate={navigate} onSignOut={signOut} />
          <main id="main" tabIndex={-1} className="content">
            <Suspense fallback={<p role="status">Loading…</p>}>
              <Page />
            </Suspense>
          </main>
        </div>
      </NavigationContext.Provider>
    </QueryClientProvider>
  );
}
