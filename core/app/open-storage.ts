import type { ConfigStore } from '../config/config-store.ts';
import { FileConfigStore } from '../config/config-store.ts';
import { readConfigFile, type PatchbayConfig } from '../config/load-config.ts';
import type { EventHub } from '../events/event-hub.ts';
import type { PostgresSettings } from '../postgres/open-postgres-settings.ts';
import type { Stores } from '../stores/stores.ts';
import { openStores } from './open-stores.ts';

/** Everything Patchbay keeps: the stores, and the settings the management API changes. */
export interface Storage {
  /** Keys, usage and caps: SQLite in the data dir, or PostgreSQL. */
  stores: Stores;
  /** On PostgreSQL, what a team's replicas share besides the stores: the config, the dashboard's sessions, the live events. Null on one machine. */
  team: PostgresSettings | null;
  /** Where the settings the management API changes are kept (config.json, or PostgreSQL). */
  configStore: ConfigStore;
  /** The settings in force at start, the pause included. */
  config: PatchbayConfig;
  /** The team's settings, then the stores (queued usage rows committed). */
  close(): Promise<void>;
}

export interface StorageOptions {
  dataDir: string;
  databaseUrl?: string;
  configPath: string;
  /** The config file was named (--config): it must exist. */
  configRequired: boolean;
  /** The config file as loaded at start, before the data dir was locked. */
  fileConfig: PatchbayConfig;
  events: EventHub;
  /** The dashboard sign-in's clock (tests pass their own). */
  now?: () => number;
  log: (message: string) => void;
}

/**
 * Opens the stores and the settings and loads the settings in force. A team's replicas share the
 * config the dashboard changes, the dashboard's sessions and the live events; they start listening
 * for each other's changes later (`team.start()`), once the caller handles them.
 */
export async function openStorage(options: StorageOptions): Promise<Storage> {
  const stores = await openStores({ dataDir: options.dataDir, databaseUrl: options.databaseUrl, log: options.log, events: options.events });
  const team = stores.postgres
    ? (await import('../postgres/open-postgres-settings.ts')).openPostgresSettings({
        ...stores.postgres,
        configPath: options.configPath,
        fileRaw: readConfigFile(options.configPath, { required: options.configRequired }),
        hub: options.events,
        sessions: { now: options.now },
        log: options.log,
      })
    : null;
  const close = async () => {
    await team?.close();
    await stores.close();
  };
  const configStore: ConfigStore = team?.config ?? new FileConfigStore(options.configPath, options.fileConfig);
  try {
    const settings = await configStore.load();
    settings.config.paused = settings.paused;
    return { stores, team, configStore, config: settings.config, close };
  } catch (error) {
    await close();
    throw error;
  }
}
