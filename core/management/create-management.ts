import { describeAgents } from './describe-agents.ts';
import { catalogStatus, updateCatalog } from './manage-catalog.ts';
import { createKey, listKeys, revokeKey, rotateKey, updateKey } from './manage-keys.ts';
import { deleteProviderSecret, setProviderSecret, testProvider } from './manage-provider-keys.ts';
import { addProvider, deleteProvider, discoverProviderModels, listProviders, updateProvider } from './manage-providers.ts';
import { explainRoute, getRouting, listModels, setRouting } from './manage-routing.ts';
import { setBaseUrl, status, subscribeEvents } from './manage-status.ts';
import { getTelemetry, setTelemetry } from './manage-telemetry.ts';
import { exportUsage, usageBreakdown, usageLatency, usageLog, usageRequest, usageRequests, usageSessionRequests, usageSessions, usageSeries, usageSummary, usageTotals } from './manage-usage.ts';
import { createManagementContext, type ManagementContext, type ManagementDeps } from './management-context.ts';

/** Every management operation, by domain; each takes the context first (see the manage-*.ts modules). */
const operations = {
  listKeys, createKey, updateKey, rotateKey, revokeKey,
  listProviders, addProvider, updateProvider, deleteProvider, discoverProviderModels,
  setProviderSecret, deleteProviderSecret, testProvider,
  getRouting, setRouting, explainRoute, listModels,
  agents: describeAgents,
  usageSummary, usageRequests, exportUsage, usageTotals, usageSeries, usageBreakdown, usageLatency, usageLog, usageSessionRequests, usageSessions, usageRequest,
  status, setBaseUrl, subscribeEvents,
  getTelemetry, setTelemetry,
  catalogStatus, updateCatalog,
} satisfies Record<string, (ctx: ManagementContext, ...args: never[]) => unknown>;

type Operations = typeof operations;

/** The operations with the context bound: what the /api router, the CLI and the desktop app call. */
export type Management = {
  [K in keyof Operations]: Operations[K] extends (ctx: never, ...args: infer A) => infer R ? (...args: A) => R : never;
};

/**
 * The management operations over one Patchbay's stores. The /api routes, the CLI's offline mode and
 * the desktop app all call these, so each operation has one implementation.
 */
export function createManagement(deps: ManagementDeps): Management {
  const ctx = createManagementContext(deps);
  return Object.fromEntries(
    Object.entries(operations).map(([name, operation]) => [name, (...args: never[]) => (operation as (ctx: ManagementContext, ...rest: never[]) => unknown)(ctx, ...args)]),
  ) as Management;
}
