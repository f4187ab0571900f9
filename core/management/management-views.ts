// The management API's response types, for the dashboard's `import type`. Types only.
export type { AttemptView, LatencyRow, RequestLogPage, RequestRow, SeriesPoint, SessionAgent, SessionPage, SessionRow, UsageSeries, UsageTotals } from '../usage/usage-views.ts';
export type { BreakerEvent, PatchbayEvents } from '../events/event-hub.ts';
export type { KeyCapEvent } from '../keys/key-cap-event.ts';
export type { ProviderStatus } from './manage-status.ts';
export type { BreakdownRow, UsageBreakdown } from '../usage/usage-views.ts';
