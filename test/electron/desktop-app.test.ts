import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startDesktopApp } from '../../electron/desktop-app.ts';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { startPatchbay, type TestPatchbay } from '../helpers/start-patchbay.ts';
import { clickTrayItem, createElectronStandIn } from './electron-stand-in.ts';

const STAND_IN = '(in-memory Electron stand-in: the real Electron cannot run here)';
const OPENAI_KEY = 'sk-desktop-test';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function emulator(): Promise<string> {
  const openai = new OpenAiEmulator({ apiKey: OPENAI_KEY });
  const url = `${await openai.start()}/v1`;
  cleanups.push(() => openai.close());
  return url;
}

function dataDirWith(config: unknown): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-desktop-'));
  writeFileSync(join(dataDir, 'config.json'), JSON.stringify(config));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  return dataDir;
}

async function launch(dataDir: string, standInOptions: Parameters<typeof createElectronStandIn>[0] = {}, port = 0) {
  const standIn = createElectronStandIn(standInOptions);
  const app = startDesktopApp(standIn.electron, {
    core: { dataDir, host: '127.0.0.1', port, env: { OPENAI_API_KEY: OPENAI_KEY }, keychainService: `patchbay-desktop-test-${process.pid}`, log: () => undefined, shutdownGraceMs: 2_000 },
    iconsDir: '/icons',
    preloadPath: '/app/preload.cjs',
  });
  cleanups.push(() => app.quit());
  return { ...standIn, desktop: app };
}

const until = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
};

describe(`desktop start-up and quit ${STAND_IN}`, () => {
  it('starts core in-process, puts it in the tray and signs the window in with a one-time code, never the admin token', async () => {
    const { desktop, trays, windows } = await launch(dataDirWith({ providers: { openai: { baseUrl: await emulator() } } }));
    expect(await desktop.ready).toBe(true);
    const url = desktop.connection()!.baseUrl;
    expect(trays[0].tooltip).toBe(`Patchbay — running\n${url}/v1\nToday: 0 requests, $0.00`);
    expect(trays[0].image).toBe('/icons/tray-running.png');
    const window = windows[0];
    expect(window.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, preload: '/app/preload.cjs' });
    expect(window.loadedUrl).toMatch(new RegExp(`^${url}/ui/#code=[^&]+$`));
    const adminToken = readFileSync(join(desktop.connection()!.dataDir, 'admin-token'), 'utf8').trim();
    expect(window.loadedUrl).not.toContain(adminToken);
    const code = window.loadedUrl!.split('#code=')[1];
    expect((await fetch(`${url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin: url }, body: JSON.stringify({ code }) })).status).toBe(200);
    // The window's CSP is enforced on every response, not only /ui's.
    let headers: Record<string, string[]> = {};
    window.headerHook!({ responseHeaders: {} }, (r) => (headers = r.responseHeaders));
    expect(headers['Content-Security-Policy'][0]).toContain("default-src 'self'");
  });

  it('tray: strategy is saved and takes effect; a new key is copied and works; pause answers 503; live events redraw icon and tooltip', async () => {
    const { desktop, trays, clipboardWrites, notifications } = await launch(dataDirWith({ providers: { openai: { baseUrl: await emulator() } } }));
    await desktop.ready;
    const { dataDir, baseUrl } = desktop.connection()!;
    const tray = trays[0];
    clickTrayItem(tray.menu, 'Cheapest (cost)');
    await until(() => tray.menu.find((i) => i.label === 'Default strategy')!.submenu!.find((i) => i.checked)?.label === 'Cheapest (cost)', 'the strategy radio');
    expect(JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8')).routing.strategy).toBe('cost');

    clickTrayItem(tray.menu, 'Create key and copy');
    await until(() => clipboardWrites.length === 1, 'the key on the clipboard');
    expect(notifications.at(-1)!.title).toBe('New Patchbay key copied');
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: clipboardWrites[0], maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: 'openai/gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(reply.choices[0].message.content).toBeTruthy();
    await until(() => tray.tooltip.includes('Today: 1 request,'), 'the tooltip to count the request');
    expect(reply.model).toContain('gpt-4.1-mini');

    clickTrayItem(tray.menu, 'Pause routing');
    await until(() => tray.image === '/icons/tray-paused.png', 'the paused icon');
    expect(tray.tooltip).toContain('paused (requests get 503)');
    const paused = await client.chat.completions.create({ model: 'openai/gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }] }).catch((e: InstanceType<typeof OpenAI.APIError>) => e);
    expect(paused).toMatchObject({ status: 503 });
    clickTrayItem(tray.menu, 'Resume routing');
    await until(() => tray.image === '/icons/tray-running.png', 'the running icon');

    clickTrayItem(tray.menu, 'Copy base URL');
    await until(() => clipboardWrites.length === 2, 'the base URL');
    expect(clipboardWrites[1]).toBe(`${baseUrl}/v1`);
  });

  it('closing the window keeps the router in the tray; quit drains, flushes usage and exits', async () => {
    const { desktop, windows, app, trays } = await launch(dataDirWith({ providers: { openai: { baseUrl: await emulator() } } }));
    await desktop.ready;
    const { dataDir, baseUrl } = desktop.connection()!;
    windows[0].userClose();
    expect(windows[0].isDestroyed()).toBe(false);
    expect((await fetch(`${baseUrl}/health`)).status).toBeLessThan(500);
    expect(existsSync(join(dataDir, 'server.json'))).toBe(true);
    // A request in flight when Quit is chosen still finishes and is recorded.
    const secret = (await desktop.connection()!.createKey('quit-test'));
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: secret, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'openai/gpt-4.1-mini', messages: [{ role: 'user', content: 'hello there, how are you today' }], stream: true });
    const chunks = stream[Symbol.asyncIterator]();
    expect((await chunks.next()).done).toBe(false);
    app.emit('before-quit', { preventDefault: () => undefined });
    let rest = 0;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) rest++;
    expect(rest).toBeGreaterThan(0);
    await until(() => app.exited !== null, 'exit');
    expect(app.exited).toBe(0);
    expect(windows[0].isDestroyed()).toBe(true);
    expect(trays[0].destroyed).toBe(true);
    expect(existsSync(join(dataDir, 'server.json'))).toBe(false);
    await expect(fetch(`${baseUrl}/health`)).rejects.toThrow();
    // Usage was flushed: the data dir opened again by a fresh Patchbay has the request.
    const again = await startPatchbay({ dataDir });
    cleanups.push(() => again.stop());
    expect((await again.patchbay.management.usageTotals({})).requests).toBe(1);
  });

  it('a second launch leaves at once and focuses the first one\'s window', async () => {
    const second = createElectronStandIn({ lockAvailable: false });
    const app = startDesktopApp(second.electron, { core: { dataDir: '/nonexistent' }, iconsDir: '/icons', preloadPath: '/p' });
    expect(await app.ready).toBe(false);
    expect(second.app.quitCalled).toBe(true);
    expect(second.trays).toHaveLength(0);

    const { desktop, app: firstApp, windows } = await launch(dataDirWith({}));
    await desktop.ready;
    windows[0].userClose();
    expect(windows[0].visible).toBe(false);
    firstApp.emit('second-instance');
    await until(() => windows[0].visible, 'the window to show again');
    expect(windows).toHaveLength(1);
  });

  it('with patchbay serve already running on the data dir it asks, then manages that server; quitting leaves it running', async () => {
    const dataDir = dataDirWith({ providers: { openai: { baseUrl: await emulator() } } });
    const serve: TestPatchbay = await startPatchbay({ dataDir });
    cleanups.push(() => serve.stop());
    const { desktop, dialogs, trays, app, windows } = await launch(dataDir);
    expect(await desktop.ready).toBe(true);
    expect(dialogs[0].message).toBe(`Patchbay is already running at ${serve.patchbay.url} (patchbay serve, same data folder).`);
    expect(desktop.connection()!.mode).toBe('attached');
    expect(trays[0].menu.map((i) => i.label)).toContain('Quit (patchbay serve keeps running)');
    expect(windows[0].loadedUrl).toMatch(new RegExp(`^${serve.patchbay.url}/ui/#code=`));
    clickTrayItem(trays[0].menu, 'Most reliable (availability)');
    await until(() => serve.patchbay.management.getRouting().strategy === 'availability', 'the strategy on the server');
    // The tray follows the server's event stream.
    await serve.patchbay.management.setRouting({ paused: true });
    await until(() => trays[0].image === '/icons/tray-paused.png', 'the paused icon from the event stream');
    await desktop.quit();
    expect(app.exited).toBe(0);
    expect((await fetch(`${serve.patchbay.url}/api/status`, { headers: { authorization: `Bearer ${serve.patchbay.adminToken}` } })).status).toBe(200);
  });

  it('a taken port: says which process holds it and starts on the free port offered', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise<void>((r) => blocker.close(() => r())));
    const taken = (blocker.address() as { port: number }).port;
    const { desktop, dialogs, notifications } = await launch(dataDirWith({}), {}, taken);
    expect(await desktop.ready).toBe(true);
    const name = readFileSync('/proc/self/comm', 'utf8').trim();
    expect(dialogs[0].message).toBe(`Patchbay could not start: port ${taken} is in use by ${name} (pid ${process.pid}).`);
    expect(notifications[0].title).toBe(dialogs[0].message);
    const offered = Number(/Start on port (\d+)/.exec(dialogs[0].buttons[0])![1]);
    expect(offered).not.toBe(taken);
    expect(desktop.connection()!.baseUrl).toBe(`http://127.0.0.1:${offered}`);
  });

  it('alerts: a key reaching 80 % of its token cap is notified once, also across restarts', async () => {
    const dataDir = dataDirWith({ providers: { openai: { baseUrl: await emulator() } } });
    const first = await launch(dataDir);
    await first.desktop.ready;
    const management = () => first.desktop.connection()!;
    const secret = await management().createKey('capped');
    const id = (await fetch(`${management().baseUrl}/api/keys`, { headers: { authorization: `Bearer ${readFileSync(join(dataDir, 'admin-token'), 'utf8').trim()}` } }).then((r) => r.json() as Promise<{ data: { id: string; name: string }[] }>)).data.find((k) => k.name === 'capped')!.id;
    await fetch(`${management().baseUrl}/api/keys/${id}`, { method: 'PATCH', headers: { authorization: `Bearer ${readFileSync(join(dataDir, 'admin-token'), 'utf8').trim()}`, 'content-type': 'application/json' }, body: JSON.stringify({ monthly_token_cap: 40 }) });
    const client = new OpenAI({ baseURL: `${management().baseUrl}/v1`, apiKey: secret, maxRetries: 0 });
    const ask = () => client.chat.completions.create({ model: 'openai/gpt-4.1-mini', messages: [{ role: 'user', content: 'a few words to count' }], max_tokens: 5 }).catch((e: Error) => e);
    for (let i = 0; i < 6 && !first.notifications.some((n) => n.title.includes('80 %')); i++) await ask();
    await until(() => first.notifications.some((n) => n.title.includes('80 %')), 'the 80 % alert');
    expect(first.notifications.filter((n) => n.title === 'Key "capped" is at 80 % of its monthly token cap')).toHaveLength(1);
    await first.desktop.quit();
    expect(JSON.parse(readFileSync(join(dataDir, 'desktop-alerts.json'), 'utf8')).shown.some((id: string) => id.includes(':80:'))).toBe(true);
  });

  it('IPC: the dashboard frame may toggle start at login; other senders and bad payloads are refused', async () => {
    const { desktop, ipcHandlers, app } = await launch(dataDirWith({}));
    await desktop.ready;
    const origin = desktop.connection()!.baseUrl;
    const handler = ipcHandlers.get('patchbay:set-start-at-login')!;
    await expect(handler({ senderFrame: { url: 'https://evil.example/ui/' } }, { enabled: true })).rejects.toThrow(/not the Patchbay dashboard/);
    await expect(handler({ senderFrame: { url: `${origin}/ui/` } }, { enabled: 1 })).rejects.toThrow(/Invalid "enabled"/);
    expect(app.openAtLogin).toBe(false);
    await expect(handler({ senderFrame: { url: `${origin}/ui/settings` } }, { enabled: true })).resolves.toEqual({ startAtLogin: true });
    expect(app.openAtLogin).toBe(true);
  });
});
