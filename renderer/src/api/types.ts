// The /api answers and request bodies, every one taken from core (type-only, so nothing of core's
// runtime reaches the bundle through this file): the dashboard and the API cannot drift apart.
// Request bodies are validated with core's zod schemas themselves (management-schemas.ts, a leaf
// module) where a form needs them.
import type { Management } from '../../../core/management/create-management.ts';
import type { NewProviderInput } from '../../../core/management/management-schemas.ts';
import type { RouteExplanation } from '../../../core/routing/route-plan.ts';

/** GET /api/catalog: how old the prices are, their sources, what discovery found. */
export type { CatalogStatus } from '../../../core/management/catalog-updater.ts';

export type {
  ExplainRouteInput,
  KeySettingsInput,
  NewProviderInput,
  ProviderSettingsInput,
  RoutingSettingsInput,
} from '../../../core/management/management-schemas.ts';
export type {
  AttemptView,
  BreakdownRow,
  BreakerEvent,
  KeyCapEvent,
  LatencyRow,
  ProviderStatus,
  RequestLogPage,
  RequestRow,
  SeriesPoint,
  SessionAgent,
  SessionPage,
  SessionRow,
  UsageBreakdown,
  UsageSeries,
  UsageTotals,
} from '../../../core/management/management-views.ts';
export type { KeyView } from '../../../core/management/key-view.ts';
export type { ProviderKeyView, ProviderView } from '../../../core/management/provider-view.ts';
export type { ExplainRequest, RouteExplanation, SkipCode } from '../../../core/routing/route-plan.ts';
export type { ManagedModel } from '../../../core/management/list-managed-models.ts';

/** GET /api/status. */
export type StatusBody = ReturnType<Management['status']>;
/** GET /api/agents. */
export type AgentsBody = ReturnType<Management['agents']>;
/** GET /api/telemetry (and PUT's answer). */
export type TelemetryBody = ReturnType<Management['getTelemetry']>;
/** GET /api/routing (and PATCH's answer). */
export type RoutingBody = ReturnType<Management['getRouting']>;
/** POST /api/providers/:name/test. */
export type CredentialTestResult = Awaited<ReturnType<Management['testProvider']>>;
/** POST /api/providers/:name/discover. */
export type DiscoveredModels = Awaited<ReturnType<Management['discoverProviderModels']>>;
/** One model of a user-defined provider, as POST and PATCH /api/providers take it. */
export type ProviderModelInput = NonNullable<NewProviderInput['models']>[number];
/** A candidate of "Which provider now?". */
export type ExplainCandidate = RouteExplanation['candidates'][number];
