import type pg from 'pg';
import type { EventHub } from '../events/event-hub.ts';
import { PostgresCatalogStore } from './postgres-catalog-store.ts';
import { PostgresConfigStore } from './postgres-config-store.ts';
import { PostgresListener } from './postgres-listener.ts';
import { PostgresDashboardSessions } from './postgres-session-store.ts';
import { PostgresEventRelay } from './postgres-events.ts';
import type { DashboardSessionOptions } from '../stores/dashboard-sign-in.ts';

export interface PostgresSettings {
  config: PostgresConfigStore;
  /** The catalog `patchbay models update` fetched, shared by the replicas. */
  catalog: PostgresCatalogStore;
  sessions: PostgresDashboardSessions;
  events: PostgresEventRelay;
  /** LISTEN, then reload everything: call once every store is loaded. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * What a team's replicas share besides keys, usage and caps: the config the dashboard and CLI
 * change, the dashboard's sign-in codes and sessions, and the live events of every replica. One
 * LISTEN connection carries the config's and the events' notifications.
 */
export function openPostgresSettings(options: {
  pool: pg.Pool;
  url: string;
  replica: string;
  configPath: string | null;
  fileRaw: unknown;
  hub: EventHub;
  sessions?: DashboardSessionOptions;
  log: (message: string) => void;
}): PostgresSettings {
  const listener = new PostgresListener(options.url, options.log, { name: `patchbay settings ${options.replica}` });
  const config = new PostgresConfigStore(options.pool, listener, { path: options.configPath, fileRaw: options.fileRaw, log: options.log });
  const catalog = new PostgresCatalogStore(options.pool, listener, options.log);
  const sessions = new PostgresDashboardSessions(options.pool, options.sessions);
  const events = new PostgresEventRelay(options.pool, listener, { replica: options.replica, hub: options.hub, log: options.log });
  return {
    config,
    catalog,
    sessions,
    events,
    start: () => listener.start(),
    async close() {
      events.close();
      await config.close();
      await listener.close();
    },
  };
}
