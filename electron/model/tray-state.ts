import type { BreakerEvent, PatchbayEvents } from '../../core/events/event-hub.ts';
import type { Strategy } from '../../core/config/config-schema.ts';

/** What the tray shows: everything here comes from one snapshot at start and the live event stream after. */
export interface TrayState {
  /** The router's origin, e.g. http://127.0.0.1:4141 (clients use `${baseUrl}/v1`). */
  baseUrl: string;
  /** "in-process": the app runs the router; "attached": it manages a `patchbay serve` that was already running. */
  mode: 'in-process' | 'attached';
  strategy: Strategy;
  paused: boolean;
  /** Endpoints (provider/model) whose circuit breaker is open or half-open. */
  failingEndpoints: string[];
  /** Today's totals (UTC day, as /api/usage/totals counts days). */
  today: { day: string; requests: number; costUsd: number };
  startAtLogin: boolean;
}

export type TrayIconState = 'running' | 'paused' | 'failing';

/** The UTC day of an instant, YYYY-MM-DD. */
export function utcDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/** Providers with at least one failing endpoint, sorted. */
export function failingProviders(state: Pick<TrayState, 'failingEndpoints'>): string[] {
  return [...new Set(state.failingEndpoints.map((endpoint) => endpoint.slice(0, endpoint.indexOf('/'))))].sort();
}

/** Paused wins (nothing is routed, so a failing provider doesn't matter yet), then failing, then running. */
export function trayIconState(state: TrayState): TrayIconState {
  if (state.paused) return 'paused';
  if (state.failingEndpoints.length > 0) return 'failing';
  return 'running';
}

export function trayTooltip(state: TrayState): string {
  const failing = failingProviders(state);
  const headline = state.paused ? 'paused (requests get 503)' : failing.length > 0 ? `failing: ${failing.join(', ')}` : 'running';
  const requests = `${state.today.requests} request${state.today.requests === 1 ? '' : 's'}`;
  return `Patchbay — ${headline}\n${state.baseUrl}/v1\nToday: ${requests}, ${formatUsd(state.today.costUsd)}`;
}

export function formatUsd(usd: number): string {
  // Cents hide what most requests cost; four decimals show them without noise.
  return usd === 0 ? '$0.00' : usd < 1 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

export type LiveEvent = { [K in keyof PatchbayEvents]: { name: K; data: PatchbayEvents[K] } }[keyof PatchbayEvents];

/** The next state after a live event; `now` decides when today's totals roll over. */
export function applyEvent(state: TrayState, event: LiveEvent, now: number): TrayState {
  switch (event.name) {
    case 'request': {
      const day = utcDay(now);
      const base = state.today.day === day ? state.today : { day, requests: 0, costUsd: 0 };
      // A request recorded just before midnight can arrive after it: count it on its own day only.
      // A model without a known price adds nothing to today's cost (its row says so).
      if (event.data.ts.slice(0, 10) !== day) return base === state.today ? state : { ...state, today: base };
      return { ...state, today: { day, requests: base.requests + 1, costUsd: base.costUsd + (event.data.cost_usd ?? 0) } };
    }
    case 'breaker':
      return { ...state, failingEndpoints: nextFailing(state.failingEndpoints, event.data) };
    case 'routing': {
      const routing = event.data as { strategy?: Strategy; paused?: boolean };
      return { ...state, strategy: routing.strategy ?? state.strategy, paused: routing.paused ?? state.paused };
    }
    case 'key_cap':
      return state;
  }
}

function nextFailing(failing: string[], event: BreakerEvent): string[] {
  const others = failing.filter((endpoint) => endpoint !== event.endpoint);
  return event.state === 'closed' ? others : [...others, event.endpoint].sort();
}
