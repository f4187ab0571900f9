import { describe, expect, it } from 'vitest';
import { buildTrayMenu, trayKeyName, type TrayMenuItem } from '../../electron/model/tray-menu.ts';
import { applyEvent, trayIconState, trayTooltip, type TrayState } from '../../electron/model/tray-state.ts';
import type { RequestRow } from '../../core/usage/usage-views.ts';

const NOW = Date.parse('2026-11-05T12:00:00Z');
const base: TrayState = {
  baseUrl: 'http://127.0.0.1:4141',
  mode: 'in-process',
  strategy: 'balanced',
  paused: false,
  failingEndpoints: [],
  today: { day: '2026-11-05', requests: 3, costUsd: 0.0123 },
  startAtLogin: false,
};

function labels(items: TrayMenuItem[]): string[] {
  return items.flatMap((item) => (item.type === 'separator' ? ['---'] : item.type === 'submenu' ? [item.label, ...labels(item.items).map((l) => `  ${l}`)] : [item.label]));
}
function find(items: TrayMenuItem[], label: string): TrayMenuItem {
  for (const item of items) {
    if ('label' in item && item.label === label) return item;
    if (item.type === 'submenu') {
      const inner = item.items.find((i) => 'label' in i && i.label === label);
      if (inner) return inner;
    }
  }
  throw new Error(`no item ${label}: ${labels(items).join(' | ')}`);
}
function row(ts: string, cost: number): RequestRow {
  return { request_id: 'r', ts, key_id: null, key_name: null, endpoint: '/v1/chat/completions', requested_model: 'auto', provider: 'openai', model: 'gpt-4.1', strategy: 'balanced', status: 200, error_type: null, stream: false, prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, cost_usd: cost, latency_ms: 5, first_byte_ms: null, route_reason: null, attempts: [] };
}

describe('tray menu model', () => {
  it('lists every action the tray offers, in order', () => {
    expect(labels(buildTrayMenu(base))).toEqual([
      'Running',
      'http://127.0.0.1:4141/v1',
      '---',
      'Default strategy',
      '  Balanced',
      '  Fastest (latency)',
      '  Cheapest (cost)',
      '  Most reliable (availability)',
      '  Round-robin',
      'Pause routing',
      '---',
      'Copy base URL',
      'Create key and copy',
      '---',
      'Open dashboard',
      'Open data folder',
      'Start at login',
      '---',
      'Quit Patchbay',
    ]);
  });

  it('checks exactly the current strategy as a radio item that sets it', () => {
    const menu = buildTrayMenu({ ...base, strategy: 'cost' });
    const radios = (find(menu, 'Default strategy') as Extract<TrayMenuItem, { type: 'submenu' }>).items.filter((i): i is Extract<TrayMenuItem, { checked: boolean }> => i.type === 'radio');
    expect(radios.filter((i) => i.checked).map((i) => i.label)).toEqual(['Cheapest (cost)']);
    expect(find(menu, 'Fastest (latency)')).toMatchObject({ action: { kind: 'set-strategy', strategy: 'latency' } });
  });

  it('offers resume while paused and says requests get 503', () => {
    const menu = buildTrayMenu({ ...base, paused: true });
    expect(labels(menu)[0]).toBe('Routing paused: requests get 503');
    expect(find(menu, 'Resume routing')).toMatchObject({ action: { kind: 'resume' } });
    expect(labels(menu)).not.toContain('Pause routing');
  });

  it('names failing providers once each, and start-at-login toggles', () => {
    const menu = buildTrayMenu({ ...base, failingEndpoints: ['openai/gpt-4.1', 'openai/gpt-4o', 'groq/llama'], startAtLogin: true });
    expect(labels(menu)[0]).toBe('Failing: groq, openai');
    expect(find(menu, 'Start at login')).toMatchObject({ type: 'checkbox', checked: true, action: { kind: 'set-start-at-login', enabled: false } });
  });

  it('says that quitting leaves an attached patchbay serve running', () => {
    expect(labels(buildTrayMenu({ ...base, mode: 'attached' }))).toContain('Quit (patchbay serve keeps running)');
  });

  it('names a tray-made key after the date and time', () => {
    expect(trayKeyName(NOW)).toBe('tray 2026-11-05 12:00:00');
  });
});

describe('tray icon and tooltip', () => {
  it('shows paused over failing over running', () => {
    expect(trayIconState(base)).toBe('running');
    expect(trayIconState({ ...base, failingEndpoints: ['openai/x'] })).toBe('failing');
    expect(trayIconState({ ...base, failingEndpoints: ['openai/x'], paused: true })).toBe('paused');
  });

  it('the tooltip has the base URL and today\'s requests and cost', () => {
    expect(trayTooltip(base)).toBe('Patchbay — running\nhttp://127.0.0.1:4141/v1\nToday: 3 requests, $0.0123');
  });
});

describe('tray state from live events', () => {
  it('counts each request of today and its cost', () => {
    const next = applyEvent(base, { name: 'request', data: row('2026-11-05T11:59:00.000Z', 0.5) }, NOW);
    expect(next.today).toEqual({ day: '2026-11-05', requests: 4, costUsd: 0.5123 });
  });

  it('starts a new day at zero', () => {
    const next = applyEvent(base, { name: 'request', data: row('2026-11-06T00:00:01.000Z', 0.25) }, Date.parse('2026-11-06T00:00:02Z'));
    expect(next.today).toEqual({ day: '2026-11-06', requests: 1, costUsd: 0.25 });
  });

  it('follows breakers, strategy and pause', () => {
    let state = applyEvent(base, { name: 'breaker', data: { endpoint: 'openai/gpt-4.1', provider: 'openai', state: 'open', at: '' } }, NOW);
    expect(trayIconState(state)).toBe('failing');
    state = applyEvent(state, { name: 'breaker', data: { endpoint: 'openai/gpt-4.1', provider: 'openai', state: 'half_open', at: '' } }, NOW);
    expect(trayIconState(state)).toBe('failing');
    state = applyEvent(state, { name: 'breaker', data: { endpoint: 'openai/gpt-4.1', provider: 'openai', state: 'closed', at: '' } }, NOW);
    expect(trayIconState(state)).toBe('running');
    state = applyEvent(state, { name: 'routing', data: { strategy: 'latency', paused: true } }, NOW);
    expect(state).toMatchObject({ strategy: 'latency', paused: true });
  });
});
