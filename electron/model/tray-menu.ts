import { STRATEGIES, type Strategy } from '../../core/config/config-schema.ts';
import { failingProviders, type TrayState } from './tray-state.ts';

/** What a tray menu item does when chosen; the Electron side maps each to one call. */
export type TrayAction =
  | { kind: 'set-strategy'; strategy: Strategy }
  | { kind: 'pause' }
  | { kind: 'resume' }
  | { kind: 'copy-base-url' }
  | { kind: 'create-key' }
  | { kind: 'open-dashboard' }
  | { kind: 'open-data-folder' }
  | { kind: 'set-start-at-login'; enabled: boolean }
  | { kind: 'quit' };

export type TrayMenuItem =
  | { type: 'normal'; label: string; enabled: boolean; action?: TrayAction }
  | { type: 'radio' | 'checkbox'; label: string; checked: boolean; action: TrayAction }
  | { type: 'separator' }
  | { type: 'submenu'; label: string; items: TrayMenuItem[] };

const STRATEGY_LABELS: Record<Strategy, string> = {
  balanced: 'Balanced',
  latency: 'Fastest (latency)',
  cost: 'Cheapest (cost)',
  availability: 'Most reliable (availability)',
  'round-robin': 'Round-robin',
};

/** The tray menu for a state: pure, so every label and check mark is tested without Electron. */
export function buildTrayMenu(state: TrayState): TrayMenuItem[] {
  const failing = failingProviders(state);
  const status = state.paused
    ? 'Routing paused: requests get 503'
    : failing.length > 0
      ? `Failing: ${failing.join(', ')}`
      : `Running${state.mode === 'attached' ? ' (patchbay serve)' : ''}`;
  return [
    { type: 'normal', label: status, enabled: false },
    { type: 'normal', label: `${state.baseUrl}/v1`, enabled: false },
    { type: 'separator' },
    {
      type: 'submenu',
      label: 'Default strategy',
      items: STRATEGIES.map((strategy) => ({ type: 'radio', label: STRATEGY_LABELS[strategy], checked: state.strategy === strategy, action: { kind: 'set-strategy', strategy } })),
    },
    state.paused ? { type: 'normal', label: 'Resume routing', enabled: true, action: { kind: 'resume' } } : { type: 'normal', label: 'Pause routing', enabled: true, action: { kind: 'pause' } },
    { type: 'separator' },
    { type: 'normal', label: 'Copy base URL', enabled: true, action: { kind: 'copy-base-url' } },
    { type: 'normal', label: 'Create key and copy', enabled: true, action: { kind: 'create-key' } },
    { type: 'separator' },
    { type: 'normal', label: 'Open dashboard', enabled: true, action: { kind: 'open-dashboard' } },
    { type: 'normal', label: 'Open data folder', enabled: true, action: { kind: 'open-data-folder' } },
    { type: 'checkbox', label: 'Start at login', checked: state.startAtLogin, action: { kind: 'set-start-at-login', enabled: !state.startAtLogin } },
    { type: 'separator' },
    { type: 'normal', label: state.mode === 'attached' ? 'Quit (patchbay serve keeps running)' : 'Quit Patchbay', enabled: true, action: { kind: 'quit' } },
  ];
}

/** The name of a key made from the tray: the secret is shown once (copied), so the name says when. */
export function trayKeyName(now: number): string {
  const iso = new Date(now).toISOString();
  return `tray ${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}
