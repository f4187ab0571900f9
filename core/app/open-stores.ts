import type { EventHub } from '../events/event-hub.ts';
import { MemoryBudgetLedger } from '../keys/budget-ledger.ts';
import { KeyStore } from '../keys/key-store.ts';
import { SqliteKeyBackend } from '../keys/sqlite-key-backend.ts';
import { openDatabase } from '../sqlite/open-database.ts';
import { SqliteUsageReader } from '../usage/sqlite-usage-reader.ts';
import { UsageStore } from '../usage/usage-store.ts';
import type { Stores } from '../stores/stores.ts';

export interface StoreOptions {
  dataDir: string;
  /** postgres://USER@HOST:PORT/DB: the stores of a team's replicas. Without it, SQLite in the data dir. */
  databaseUrl?: string;
  log: (message: string) => void;
  /** Live events: each recorded usage row becomes a `request` event. */
  events: EventHub;
}

/** Opens the stores: SQLite in the data dir (the default, exactly as before), or PostgreSQL when a URL is given. */
export async function openStores(options: StoreOptions): Promise<Stores> {
  if (options.databaseUrl) {
    const { openPostgresStores } = await import('../postgres/open-postgres-stores.ts');
    return openPostgresStores({ url: options.databaseUrl, log: options.log, events: options.events });
  }
  const db = openDatabase(options.dataDir);
  const keyStore = new KeyStore(db);
  const keys = new SqliteKeyBackend(keyStore);
  const usage = new UsageStore(db, options.log, { writerThread: true, events: { hub: options.events, keyName: (id) => keys.nameOf(id) } });
  const reader = new SqliteUsageReader(usage);
  return {
    backend: 'sqlite',
    keys,
    usage,
    reader,
    // One process owns the file: the caps are kept in its memory, from the month's usage rows.
    ledger: new MemoryBudgetLedger((keyId, monthStart) => reader.keyTotalsSince(keyId, monthStart)),
    sqlite: { db, keys: keyStore, usage },
    postgres: null,
    async close() {
      await usage.close();
      db.close();
    },
  };
}
