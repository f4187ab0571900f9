import type { ElectronApi } from './electron-api.ts';
import { linkDecision } from './model/navigation-policy.ts';

/**
 * Electron's security checklist for every web contents: no new windows (web links go to the
 * system browser), no navigation away from the local dashboard, no webviews, no permission grants.
 */
export function applySecurityRules(electron: ElectronApi, dashboardOrigin: () => string | null): void {
  electron.app.on('web-contents-created', (_event, contents) => {
    contents.setWindowOpenHandler(({ url }) => {
      const origin = dashboardOrigin();
      if (origin && linkDecision(url, origin) === 'open-in-browser') void electron.shell.openExternal(url);
      return { action: 'deny' };
    });
    contents.on('will-navigate', (event, url) => {
      const origin = dashboardOrigin();
      const decision = origin ? linkDecision(url, origin) : 'deny';
      if (decision === 'stay') return;
      event.preventDefault();
      if (decision === 'open-in-browser') void electron.shell.openExternal(url);
    });
    contents.on('will-redirect', (event, url) => {
      const origin = dashboardOrigin();
      if (!origin || linkDecision(url, origin) !== 'stay') event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  });
}
