import { spawn } from 'node:child_process';
import { requestSignInLink } from './connect-management.ts';
import { parseCommand } from './parse-command.ts';
import type { CliIo } from './cli-io.ts';

/**
 * `patchbay ui`: a fresh one-time sign-in link to the running Patchbay's dashboard, printed and
 * opened in the browser. The admin token stays in the data dir; the link carries a code that works
 * once, for 10 minutes, in the URL fragment (which browsers never send to a server).
 */
export async function runUiCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommand(args, { 'no-open': { type: 'boolean' } });
  const link = await requestSignInLink(values, io.env, io.err);
  if (!link) {
    io.err('Patchbay is not running, so there is no dashboard to open: start it with npm start (or "patchbay serve"), then run "patchbay ui" again.\n');
    return 1;
  }
  io.out(`Sign in: ${link.url}\n`);
  io.err(`The link works once, until ${link.expires_at}.\n`);
  if (values['no-open']) return 0;
  const opener = browserCommand(link.url, process.platform, io.env);
  if (!opener) {
    io.err('No graphical session found (DISPLAY / WAYLAND_DISPLAY unset): open the link above in a browser.\n');
    return 0;
  }
  if (!(await launch(opener))) io.err(`Could not run "${opener.command}" to open a browser: open the link above yourself.\n`);
  return 0;
}

/** How this platform opens a URL in the default browser; null where no display can show one. */
export function browserCommand(url: string, platform: NodeJS.Platform, env: NodeJS.ProcessEnv): { command: string; args: string[] } | null {
  if (platform === 'darwin') return { command: 'open', args: [url] };
  // `start` takes its first quoted argument as a window title, hence the empty one (Node quotes '' as "").
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '', url] };
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return null;
  return { command: 'xdg-open', args: [url] };
}

/** Starts the opener detached (the browser outlives this command); true once it started. */
function launch(opener: { command: string; args: string[] }): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(opener.command, opener.args, { detached: true, stdio: 'ignore', windowsHide: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}
