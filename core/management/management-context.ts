import type { Catalog } from '../catalog/load-catalog.ts';
import { FileConfigStore, type ConfigStore } from '../config/config-store.ts';
import type { PatchbayConfig } from '../config/load-config.ts';
import type { EventHub } from '../events/event-hub.ts';
import type { KeyBackend } from '../keys/key-backend.ts';
import type { KeyLimiter } from '../keys/key-limiter.ts';
import type { HealthTracker } from '../routing/health-tracker.ts';
import type { Router } from '../routing/router.ts';
import type { KeychainSecretStore } from '../secrets/keychain-secret-store.ts';
import type { UsageReader } from '../usage/usage-backend.ts';
import type { LiveConfig } from './apply-config-change.ts';
import type { IdleMemoryStats } from '../runtime/idle-memory.ts';
import type { RoutingView } from './routing-view.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';
import type { CatalogUpdater } from './catalog-updater.ts';

export interface ManagementDeps {
  config: PatchbayConfig;
  configPath: string;
  /** Where routing and provider changes are saved (config.json, or PostgreSQL for a team); defaults to the file at configPath. */
  configStore?: ConfigStore;
  catalog: Catalog;
  router: Router;
  /** Told the new routing settings after each change (the live event stream). */
  onRoutingChange?: (routing: RoutingView) => void;
  keys: KeyBackend;
  usage: UsageReader;
  secrets: KeychainSecretStore;
  health: HealthTracker;
  /** The running server's key limiter (reservations in flight, cap refusals); absent in the CLI's offline mode. */
  limiter?: Pick<KeyLimiter, 'capState'>;
  version: string;
  startedAt: number;
  /** Live events for GET /api/events. */
  events?: EventHub;
  /** The running server's idle memory release (core/app/idle-memory.ts), for GET /api/status. */
  idleMemory?: () => IdleMemoryStats;
  /** The running server's OpenTelemetry export (GET/PUT /api/telemetry); absent in the CLI's offline mode. */
  telemetry?: Pick<Telemetry, 'status' | 'apply'>;
  /** The running server's catalog updates and model discovery (absent in the CLI's offline mode). */
  models?: Pick<CatalogUpdater, 'status' | 'update'>;
}

/**
 * What every management operation takes first: the stores and services of one Patchbay (the server,
 * or the CLI's offline mode on the data dir). Each operation names the part it reads with a Pick.
 */
export interface ManagementContext extends ManagementDeps {
  configStore: ConfigStore;
  /** The /v1 base URL clients use, known once the server listens (setBaseUrl); null until then. */
  baseUrl: string | null;
}

export function createManagementContext(deps: ManagementDeps): ManagementContext {
  return { ...deps, configStore: deps.configStore ?? new FileConfigStore(deps.configPath, deps.config), baseUrl: null };
}

/** The shared objects a saved config change is applied to (applyConfigChange). */
export function liveConfig(ctx: Pick<ManagementContext, 'config' | 'catalog' | 'configStore'>): LiveConfig {
  return { config: ctx.config, catalog: ctx.catalog, store: ctx.configStore };
}
