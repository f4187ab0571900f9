import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dispatchIpc, IPC_CONTRACT, type IpcHandlers } from '../../electron/model/ipc-contract.ts';
import { linkDecision } from '../../electron/model/navigation-policy.ts';

const ORIGIN = 'http://127.0.0.1:4141';
const calls: unknown[] = [];
const handlers: IpcHandlers = {
  'patchbay:get-desktop-info': () => ({ version: '0.1.0', dataDir: '/d', mode: 'in-process', startAtLogin: false }),
  'patchbay:set-start-at-login': (p) => (calls.push(p), { startAtLogin: p.enabled }),
  'patchbay:open-data-folder': () => undefined,
};

describe('IPC contract', () => {
  it('dispatches a valid message from the dashboard', async () => {
    await expect(dispatchIpc('patchbay:set-start-at-login', `${ORIGIN}/ui/settings`, { enabled: true }, ORIGIN, handlers)).resolves.toEqual({ startAtLogin: true });
    await expect(dispatchIpc('patchbay:get-desktop-info', `${ORIGIN}/ui/`, undefined, ORIGIN, handlers)).resolves.toMatchObject({ dataDir: '/d' });
  });

  it('refuses senders that are not the local dashboard, naming them', async () => {
    for (const frame of ['https://evil.example/ui/', 'http://127.0.0.1:4142/ui/', `${ORIGIN}/v1/models`, 'file:///etc/passwd', null]) {
      await expect(dispatchIpc('patchbay:set-start-at-login', frame, { enabled: true }, ORIGIN, handlers)).rejects.toThrow(/is not the Patchbay dashboard/);
    }
    expect(calls).toHaveLength(1);
  });

  it('refuses bad payloads and unknown channels, naming the field', async () => {
    await expect(dispatchIpc('patchbay:set-start-at-login', `${ORIGIN}/ui/`, { enabled: 'yes' }, ORIGIN, handlers)).rejects.toThrow(/Invalid "enabled"/);
    await expect(dispatchIpc('patchbay:open-data-folder', `${ORIGIN}/ui/`, { path: '/etc' }, ORIGIN, handlers)).rejects.toThrow(/Invalid "path"/);
    await expect(dispatchIpc('patchbay:run', `${ORIGIN}/ui/`, {}, ORIGIN, handlers)).rejects.toThrow(/Unknown channel "patchbay:run"/);
    await expect(dispatchIpc('toString', `${ORIGIN}/ui/`, {}, ORIGIN, handlers)).rejects.toThrow(/Unknown channel/);
    expect(calls).toHaveLength(1);
  });

  it('the preload exposes exactly the contract\'s channels (it cannot import them: sandboxed preloads load no local modules)', () => {
    const preload = readFileSync(new URL('../../electron/preload.cts', import.meta.url), 'utf8');
    expect([...preload.matchAll(/'(patchbay:[a-z-]+)'/g)].map((m) => m[1]).sort()).toEqual(Object.keys(IPC_CONTRACT).sort());
  });
});

describe('navigation policy', () => {
  it('keeps the dashboard in the window, opens web links in the browser, drops the rest', () => {
    expect(linkDecision(`${ORIGIN}/ui/keys`, ORIGIN)).toBe('stay');
    expect(linkDecision('https://platform.openai.com/api-keys', ORIGIN)).toBe('open-in-browser');
    expect(linkDecision(`${ORIGIN}/api/keys`, ORIGIN)).toBe('deny');
    expect(linkDecision('file:///etc/passwd', ORIGIN)).toBe('deny');
    expect(linkDecision('javascript:alert(1)', ORIGIN)).toBe('deny');
    expect(linkDecision('ms-settings:privacy', ORIGIN)).toBe('deny');
    expect(linkDecision('http://127.0.0.1.evil.example:4141/ui/', ORIGIN)).toBe('open-in-browser');
    expect(linkDecision('http://127.0.0.1:4141.evil.example/ui/', ORIGIN)).toBe('deny');
  });
});
