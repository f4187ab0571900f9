import { useCallback, useSyncExternalStore } from 'react';

export const PAGES = [
  { path: 'overview', title: 'Overview' },
  { path: 'providers', title: 'Providers' },
  { path: 'routing', title: 'Routing' },
  { path: 'keys', title: 'Keys' },
  { path: 'usage', title: 'Usage' },
  { path: 'requests', title: 'Requests' },
  { path: 'sessions', title: 'Sessions' },
] as const;
export type PagePath = (typeof PAGES)[number]['path'];

const BASE = import.meta.env.BASE_URL; // '/ui/'

/** The page a pathname shows: /ui/keys -> keys; anything unknown -> overview. */
export function pageFromPath(pathname: string): PagePath {
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname.replace(/^\//, '');
  const first = rest.split('/')[0];
  return PAGES.find((p) => p.path === first)?.path ?? 'overview';
}

export const hrefFor = (page: PagePath) => `${BASE}${page}`;

function subscribe(onChange: () => void) {
  window.addEventListener('popstate', onChange);
  return () => window.removeEventListener('popstate', onChange);
}

/** Client-side navigation over history.pushState; core serves index.html for every /ui/* path. */
export function useRoute(): [PagePath, (page: PagePath) => void] {
  const page = useSyncExternalStore(subscribe, () => pageFromPath(window.location.pathname));
  const navigate = useCallback((next: PagePath) => {
    window.history.pushState(null, '', hrefFor(next));
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, []);
  return [page, navigate];
}
