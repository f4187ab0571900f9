import { randomBytes } from 'node:crypto';
import { DatabaseStartError } from './database-unavailable.ts';
import pg from 'pg';
import type { Stores } from '../stores/stores.ts';
import type { EventHub } from '../events/event-hub.ts';
import { PostgresBudgetLedger } from './postgres-budget-ledger.ts';
import { PostgresKeyStore } from './postgres-key-store.ts';
import { migratePostgres } from './postgres-migrations.ts';
import { databaseTarget, describeDatabaseStartError } from './postgres-start-errors.ts';
import { PostgresUsageQueries } from './postgres-usage-queries.ts';
import { PostgresUsageSink } from './postgres-usage-store.ts';
import { PostgresRateWindows } from './postgres-rate-windows.ts';

/** bigint (counts, sums of integers) and numeric (sums of bigints) come back as numbers: every value Patchbay sums fits a double. */
const NUMBER_TYPES = new Set<number>([20, 1700]);
const types = {
  getTypeParser: ((oid: number, format?: string) => (NUMBER_TYPES.has(oid) ? Number : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser,
};

/** Shows a database URL without its password. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the database URL';
  }
}

/**
 * The stores of a team's replicas on one PostgreSQL: the schema migrated under an advisory lock,
 * keys cached in memory and kept current through LISTEN/NOTIFY, caps reserved and settled in the
 * database, usage rows written in batches. A small pool: the request path only touches it for
 * capped keys (one reservation, one settlement).
 */
export async function openPostgresStores(options: { url: string; log: (message: string) => void; events: EventHub; replica?: string }): Promise<Stores> {
  const pool = new pg.Pool({ connectionString: options.url, max: 10, types, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 30_000 });
  // An idle client's error (PostgreSQL restarting) must not take the process down: the next query reconnects.
  pool.on('error', (error) => options.log(`PostgreSQL connection lost (${error.message}); reconnecting on the next query.`));
  const shownAs = redactUrl(options.url);
  try {
    // A database a newer release expanded (a rolling upgrade): used as it is, and the log says so.
    const { note } = await migratePostgres(pool);
    if (note) options.log(note);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new DatabaseStartError(describeDatabaseStartError(error, databaseTarget(options.url, shownAs)));
  }
  const replica = options.replica ?? `replica_${randomBytes(6).toString('hex')}`;
  const keys = await PostgresKeyStore.open(pool, options.url, options.log, { replica });
  const ledger = await PostgresBudgetLedger.open(pool, replica, options.log);
  const usage = new PostgresUsageSink(pool, { log: options.log, events: { hub: options.events, keyName: (id) => keys.nameOf(id) } });
  const queries = new PostgresUsageQueries(pool);
  const rates = new PostgresRateWindows(pool, options.log);
  const read =
    <A extends unknown[], R>(query: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await usage.flushAsync();
      return query.apply(queries, args);
    };
  return {
    backend: 'postgres',
    keys,
    usage,
    // Every read sees the rows this replica recorded before it (as on SQLite).
    reader: {
      keyTotalsSince: read(queries.keyTotalsSince),
      totalsBy: read(queries.totalsBy),
      totals: read(queries.totals),
      series: read(queries.series),
      latency: read(queries.latency),
      breakdown: read(queries.breakdown),
      sessions: read(queries.sessions),
      requestLog: read(queries.log),
      request: read(queries.request),
      rows: read(queries.rows),
      recentAttempts: read(queries.recentAttempts),
    },
    ledger,
    rates,
    sqlite: null,
    postgres: { pool, url: options.url, replica, shownAs },
    async close() {
      await usage.close();
      await rates.close();
      await ledger.close();
      await keys.close();
      await pool.end();
    },
  };
}
