import type { BreakerEvent } from '../../core/events/event-hub.ts';
import type { KeyCapEvent } from '../../core/keys/key-cap-event.ts';
import type { LiveEvent } from './tray-state.ts';

/** An OS notification to show. */
export interface Alert {
  title: string;
  body: string;
}

/**
 * What the alerts remember: the ids of alerts already shown (each names its month, so a new month
 * starts clean) and which providers had a "failing" alert not yet followed by "recovered".
 * Persisted in the data dir so a restart doesn't repeat this month's alerts.
 */
export interface AlertLedger {
  shown: string[];
  /** Provider -> endpoints currently failing (open or half-open). */
  failing: Record<string, string[]>;
}

export const EMPTY_LEDGER: AlertLedger = { shown: [], failing: {} };

export function monthOf(now: number): string {
  return new Date(now).toISOString().slice(0, 7);
}

/** Alerts for one event and the ledger after it. Each alert at most once per threshold per month. */
export function decideAlerts(ledger: AlertLedger, event: LiveEvent, now: number): { alerts: Alert[]; ledger: AlertLedger } {
  if (event.name === 'key_cap') return once(ledger, `key_cap:${event.data.key_id}:${event.data.cap}:${event.data.threshold}:${event.data.month}`, () => keyCapAlert(event.data));
  if (event.name === 'breaker') return breakerAlerts(ledger, event.data, now);
  return { alerts: [], ledger };
}

/** Keeps only this month's ids (the ledger never grows past a month of alerts). */
export function pruneLedger(ledger: AlertLedger, now: number): AlertLedger {
  const month = monthOf(now);
  return { ...ledger, shown: ledger.shown.filter((id) => id.endsWith(`:${month}`)) };
}

function once(ledger: AlertLedger, id: string, make: () => Alert, next: AlertLedger = ledger): { alerts: Alert[]; ledger: AlertLedger } {
  if (ledger.shown.includes(id)) return { alerts: [], ledger: next };
  return { alerts: [make()], ledger: { ...next, shown: [...next.shown, id] } };
}

function keyCapAlert(event: KeyCapEvent): Alert {
  const what = event.cap === 'usd' ? `$${event.used.toFixed(2)} of its $${event.limit.toFixed(2)}` : `${event.used.toLocaleString('en')} of its ${event.limit.toLocaleString('en')} tokens`;
  if (event.threshold === 100) {
    return {
      title: `Key "${event.key_name}" reached its monthly ${event.cap === 'usd' ? 'USD' : 'token'} cap`,
      body: `It used ${what} in ${event.month}; its requests are refused until next month. Raise the cap under Keys in the dashboard.`,
    };
  }
  return {
    title: `Key "${event.key_name}" is at ${event.threshold} % of its monthly ${event.cap === 'usd' ? 'USD' : 'token'} cap`,
    body: `It used ${what} in ${event.month}. At 100 % its requests are refused; raise the cap under Keys in the dashboard.`,
  };
}

function breakerAlerts(ledger: AlertLedger, event: BreakerEvent, now: number): { alerts: Alert[]; ledger: AlertLedger } {
  const provider = event.provider;
  const before = ledger.failing[provider] ?? [];
  const others = before.filter((endpoint) => endpoint !== event.endpoint);
  const after = event.state === 'closed' ? others : [...others, event.endpoint];
  const failing = { ...ledger.failing };
  if (after.length > 0) failing[provider] = after;
  else delete failing[provider];
  const next = { ...ledger, failing };
  const month = monthOf(now);
  // One alert per provider, not per endpoint: the first endpoint to fail says so, the last to recover too.
  if (before.length === 0 && after.length > 0 && event.state === 'open') {
    return once(ledger, `breaker_open:${provider}:${month}`, () => ({
      title: `${provider} is failing`,
      body: `Patchbay stopped sending requests to ${event.endpoint} after repeated errors and falls back to other providers. It retries on its own; details on the dashboard's Providers page.`,
    }), next);
  }
  if (before.length > 0 && after.length === 0) {
    // "Recovered" only follows a "failing" alert that was shown.
    if (!ledger.shown.includes(`breaker_open:${provider}:${month}`)) return { alerts: [], ledger: next };
    return once(ledger, `breaker_closed:${provider}:${month}`, () => ({ title: `${provider} recovered`, body: `Requests are routed to ${provider} again.` }), next);
  }
  return { alerts: [], ledger: next };
}
