import { shell, type App } from 'electron';

/** Electron's security checklist: no new windows, no navigation away from the dashboard, links open in the browser. */
export function applySecurityRules(app: App): void {
  app.on('web-contents-created', (_event, contents) => {
    contents.setWindowOpenHandler(({ url }) => {
      if (url.startsWith('https://')) void shell.openExternal(url);
      return { action: 'deny' };
    });
    contents.on('will-navigate', (event, url) => {
      if (!/^http:\/\/(127\.0\.0\.1|localhost):\d+\/dashboard\//.test(url)) event.preventDefault();
    });
  });
}
