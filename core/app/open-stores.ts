import type pg from 'pg';
import type { EventHub } from '../events/event-hub.ts';
import type { BudgetLedger } from '../keys/budget-ledger.ts';
import { MemoryBudgetLedger } from '../keys/budget-ledger.ts';
import type { KeyBackend } from '../keys/key-backend.ts';
import type { SharedRateWindows } from '../keys/shared-rate-windows.ts';
import { KeyStore } from '../keys/key-store.ts';
import { SqliteKeyBackend } from '../keys/sqlite-key-backend.ts';
import { openDatabase, type PatchbayDatabase } from '../usage/open-database.ts';
import { SqliteUsageReader } from '../usage/sqlite-usage-reader.ts';
import type { UsageReader, UsageSink } from '../usage/usage-backend.ts';
import { UsageStore } from '../usage/usage-store.ts';

/** Everything Patchbay keeps in a database, behind the interfaces both backends implement. */
export interface Stores {
  backend: 'sqlite' | 'postgres';
  keys: KeyBackend;
  usage: UsageSink;
  reader: UsageReader;
  ledger: BudgetLedger;
  /** Rate limits shared by a team's replicas (PostgreSQL); absent on SQLite, whose windows are the process's own. */
  rates?: SharedRateWindows;
  /** The SQLite objects themselves (tests and the benchmark read the file); null on PostgreSQL. */
  sqlite: { db: PatchbayDatabase; keys: KeyStore; usage: UsageStore } | null;
  /** PostgreSQL's pool, URL and this replica's id (the shared config, sessions and events use them); null on SQLite. */
  postgres: { pool: pg.Pool; url: string; replica: string } | null;
  /** Commits queued usage rows and closes the connections. */
  close(): Promise<void>;
}

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
