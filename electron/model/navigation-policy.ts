/** Where the dashboard window may go: its own pages on the local server, nothing else. */
export function isDashboardUrl(target: string, dashboardOrigin: string): boolean {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return false;
  }
  return url.origin === dashboardOrigin && (url.pathname === '/ui' || url.pathname.startsWith('/ui/'));
}

/**
 * What happens to a link the page tries to open (window.open, target=_blank) or navigate to:
 * the dashboard stays in the window, web pages open in the system browser, anything else
 * (file:, javascript:, custom schemes that could start programs) is dropped.
 */
export function linkDecision(target: string, dashboardOrigin: string): 'stay' | 'open-in-browser' | 'deny' {
  if (isDashboardUrl(target, dashboardOrigin)) return 'stay';
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return 'deny';
  }
  if (url.protocol === 'https:' || url.protocol === 'http:') return url.origin === dashboardOrigin ? 'deny' : 'open-in-browser';
  return 'deny';
}
