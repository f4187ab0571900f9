import type pg from 'pg';
import type { BudgetLedger } from '../keys/budget-ledger.ts';
import type { KeyBackend } from '../keys/key-backend.ts';
import type { KeyStore } from '../keys/key-store.ts';
import type { SharedRateWindows } from '../keys/shared-rate-windows.ts';
import type { PatchbayDatabase } from '../sqlite/open-database.ts';
import type { UsageReader, UsageSink } from '../usage/usage-backend.ts';
import type { UsageStore } from '../usage/usage-store.ts';

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
  /** PostgreSQL's pool, URL and this replica's id (the shared config, sessions and events use them), and the URL as logs show it (no password); null on SQLite. */
  postgres: { pool: pg.Pool; url: string; replica: string; shownAs: string } | null;
  /** Commits queued usage rows and closes the connections. */
  close(): Promise<void>;
}
