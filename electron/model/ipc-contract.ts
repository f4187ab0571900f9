import { z } from 'zod';

/**
 * Everything the dashboard window may ask the main process: one channel per message, each payload
 * validated here (the renderer is treated as untrusted), each sender checked to be a frame of the
 * local dashboard. electron/preload.cts exposes exactly these channels as `window.patchbayDesktop`.
 */
export const IPC_CONTRACT = {
  'patchbay:get-desktop-info': z.object({}).strict(),
  'patchbay:set-start-at-login': z.object({ enabled: z.boolean() }).strict(),
  'patchbay:open-data-folder': z.object({}).strict(),
} as const;

export type IpcChannel = keyof typeof IPC_CONTRACT;
export type IpcPayload<C extends IpcChannel> = z.infer<(typeof IPC_CONTRACT)[C]>;

export interface DesktopInfo {
  version: string;
  dataDir: string;
  mode: 'in-process' | 'attached';
  startAtLogin: boolean;
}

/** One function per message. */
export interface IpcHandlers {
  'patchbay:get-desktop-info': (payload: IpcPayload<'patchbay:get-desktop-info'>) => DesktopInfo | Promise<DesktopInfo>;
  'patchbay:set-start-at-login': (payload: IpcPayload<'patchbay:set-start-at-login'>) => { startAtLogin: boolean } | Promise<{ startAtLogin: boolean }>;
  'patchbay:open-data-folder': (payload: IpcPayload<'patchbay:open-data-folder'>) => void | Promise<void>;
}

/** A refused IPC call; the message says what was wrong (it reaches the page's console as the rejection). */
export class IpcRefusedError extends Error {
  override name = 'IpcRefusedError';
}

/** True when the frame that sent a message is the local dashboard (same origin, under /ui/). */
export function isDashboardFrame(frameUrl: string | null | undefined, dashboardOrigin: string): boolean {
  if (!frameUrl) return false;
  let url: URL;
  try {
    url = new URL(frameUrl);
  } catch {
    return false;
  }
  return url.origin === dashboardOrigin && (url.pathname === '/ui' || url.pathname.startsWith('/ui/'));
}

/**
 * Checks and dispatches one IPC message. `frameUrl` is the sending frame's URL (event.senderFrame.url),
 * null when the frame is gone.
 */
export async function dispatchIpc(channel: string, frameUrl: string | null | undefined, payload: unknown, dashboardOrigin: string, handlers: IpcHandlers): Promise<unknown> {
  if (!Object.hasOwn(IPC_CONTRACT, channel)) throw new IpcRefusedError(`Unknown channel "${channel}".`);
  if (!isDashboardFrame(frameUrl, dashboardOrigin)) throw new IpcRefusedError(`Refused "${channel}": the sender (${frameUrl ?? 'a closed frame'}) is not the Patchbay dashboard at ${dashboardOrigin}/ui/.`);
  const name = channel as IpcChannel;
  const parsed = IPC_CONTRACT[name].safeParse(payload ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.length > 0 ? issue.path.join('.') : issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : 'payload';
    throw new IpcRefusedError(`Invalid "${field}" for ${channel}: ${issue.message}.`);
  }
  const handler = handlers[name] as (payload: unknown) => unknown;
  return handler(parsed.data);
}
