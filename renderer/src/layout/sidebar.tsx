import type { MouseEvent } from 'react';
import { PAGES, hrefFor, type PagePath } from './use-route.ts';

interface Props {
  current: PagePath;
  onNavigate: (page: PagePath) => void;
  onSignOut: () => void;
}

export function Sidebar({ current, onNavigate, onSignOut }: Props) {
  const follow = (page: PagePath) => (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    onNavigate(page);
  };
  return (
    <nav className="sidebar" aria-label="Main">
      <div className="brand">Patchbay</div>
      <ul>
        {PAGES.map((p) => (
          <li key={p.path}>
            <a href={hrefFor(p.path)} aria-current={p.path === current ? 'page' : undefined} onClick={follow(p.path)}>
              {p.title}
            </a>
          </li>
        ))}
      </ul>
      <button type="button" className="button ghost sign-out" onClick={onSignOut}>
        Sign out
      </button>
    </nav>
  );
}
