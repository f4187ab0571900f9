// The public shape of a running Patchbay and of what starts it: what the CLI, the desktop app and the
// tests hold; create-patchbay.ts builds it.
import type { Catalog } from '../catalog/load-catalog.ts';
import type { CatalogUpdater } from '../management/catalog-updater.ts';
import type { PatchbayConfig } from '../config/load-config.ts';
import type { EventHub } from '../events/event-hub.ts';
import type { ReplicaLifecycle } from '../http/replica-lifecycle.ts';
import type { KeyStore } from '../keys/key-store.ts';
import type { Management } from '../management/create-management.ts';
import type { UpstreamLimits } from '../providers/upstream-limits.ts';
import type { HealthTracker } from '../routing/health-tracker.ts';
import type { PatchbayDatabase } from '../sqlite/open-database.ts';
import type { Stores } from '../stores/stores.ts';
import type { Telemetry } from '../telemetry/telemetry.ts';
import type { UsageStore } from '../usage/usage-store.ts';

export interface PatchbayOptions {
  dataDir: string;
  /** Config file; defaults to config.json in the data dir (optional there, required when named). */
  configPath?: string;
  host?: string;
  port?: number;
  /** Environment for provider secrets; tests pass their own so they never read the developer's. */
  env?: NodeJS.ProcessEnv;
  /** A server's provider secrets file (`--secrets-file`, PATCHBAY_SECRETS_FILE): NAME=value lines, mode 600 checked before anything starts. */
  secretsFile?: string;
  /** Keychain service name the provider secrets are stored under (tests use their own). */
  keychainService?: string;
  /** How long a shutdown waits for in-flight requests before cutting them (default SHUTDOWN_GRACE_MS). */
  shutdownGraceMs?: number;
  log?: (message: string) => void;
  /** The dashboard: its built folder (default renderer/dist in the package) and the sign-in clock (tests pass their own). */
  dashboard?: { dir?: string; now?: () => number };
  /** Bytes of one upstream answer held in memory (defaults in upstream-limits.ts; tests set small ones). Process-wide. */
  limits?: Partial<UpstreamLimits>;
  /** postgres://USER@HOST:PORT/DB (`--database`, PATCHBAY_DATABASE_URL): keys, usage and caps in PostgreSQL, shared by replicas. Without it, the secrets file's PATCHBAY_DATABASE_URL (a password there is in no command line). */
  databaseUrl?: string;
  /** List this server among the user's running servers, so a CLI without --data-dir finds it (`patchbay serve`). */
  announce?: boolean;
  /** The routing health's clock (breaker cool-downs, rate-limit windows, the health window); tests pass their own. */
  healthClock?: () => number;
  /** Quiet time after the last routed request before memory goes back to the system (default IDLE_COLLECT_AFTER_MS; tests set short ones). */
  idleCollectAfterMs?: number;
  /** Read each keyed provider's own model list at start and every catalog.discoverEveryMinutes (default true). */
  discovery?: boolean;
}

export interface Patchbay {
  /** The URL for use on this machine (loopback when listening on all interfaces). */
  url: string;
  /** Every URL it answers at: `url`, then the network addresses when listening on 0.0.0.0 or ::. */
  urls: string[];
  /** True when listening beyond loopback: other machines can reach the API. */
  exposed: boolean;
  host: string;
  port: number;
  config: PatchbayConfig;
  catalog: Catalog;
  /** Keys, usage and caps behind the interfaces both backends implement. */
  stores: Stores;
  /** SQLite only (tests, the benchmark): the database file, its key store and usage store. They throw on PostgreSQL. */
  db: PatchbayDatabase;
  keys: KeyStore;
  usage: UsageStore;
  health: HealthTracker;
  /** The catalog's updates (`patchbay models update`) and the providers' own model lists. */
  models: CatalogUpdater;
  management: Management;
  /** Live events (request, breaker, key_cap, routing) for GET /api/events. */
  events: EventHub;
  /** OpenTelemetry traces and metrics, and GET /metrics (off unless configured). */
  telemetry: Telemetry;
  /** The management API's credential (also in DATA_DIR/admin-token). */
  adminToken: string;
  /** The key created on a laptop's first start with no keys: shown once, never stored in clear. A team's replica makes none (keys create does). */
  firstKey: string | null;
  /** server.publicUrl (links, snippets and sign-in codes use it), or null. */
  publicUrl: string | null;
  /** The team's database as the log may show it (no password), or null on SQLite. */
  database: string | null;
  lifecycle: ReplicaLifecycle;
  /**
   * A link that signs a browser (or the desktop window) into the dashboard: a one-time code in the
   * URL fragment, valid 10 minutes; the admin token never goes into a URL.
   */
  createSignInUrl(): string;
  /** The same link on either backend (on PostgreSQL the code is in the database, so any replica accepts it). */
  signInLink(): Promise<string>;
  /** Stops accepting, waits for in-flight requests, flushes usage, closes the database. */
  close(): Promise<void>;
  /**
   * SIGTERM: /health says "draining" and requests are still served for server.drainMs when a proxy
   * polls /health (not at all when none does), then close(). Called again, it stops waiting.
   */
  shutdown(): Promise<void>;
}
