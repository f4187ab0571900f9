import Database from 'better-sqlite3';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BREAKDOWN_ROLLUPS, SESSION_CLASSES_ROLLUP } from './breakdown-rollups.ts';

export type PatchbayDatabase = Database.Database;

const LATENCY_BUCKET = (column: string) => `CAST(ceil(log2(max(${column}, 1)) * 8) AS INTEGER)`;

/** A rollup of usage sums per time unit and dimensions, filled from the rows already there. */
function rollupTable(table: string, unit: string, unitExpression: string, dimensions: string[]): string {
  return `CREATE TABLE ${table} (
     ${unit} INTEGER NOT NULL, ${dimensions.map((d) => `${d} TEXT NOT NULL`).join(', ')},
     requests INTEGER NOT NULL, errors INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
     total_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL,
     PRIMARY KEY (${unit}, ${dimensions.join(', ')})
   ) WITHOUT ROWID;
   INSERT INTO ${table}
     SELECT ${unitExpression}, ${dimensions.map((d) => `coalesce(${d}, '')`).join(', ')}, count(*), sum(status >= 400),
            sum(prompt_tokens), sum(completion_tokens), sum(total_tokens), sum(cost_usd)
       FROM usage GROUP BY ${dimensions.map((_, i) => i + 1).concat(dimensions.length + 1).join(', ')};`;
}

/** The trigger's statement adding one new row to a rollup. */
function rollupUpsert(table: string, unitExpression: string, dimensions: string[]): string {
  return `INSERT INTO ${table} VALUES (${unitExpression}, ${dimensions.map((d) => `coalesce(NEW.${d}, '')`).join(', ')},
       1, NEW.status >= 400, NEW.prompt_tokens, NEW.completion_tokens, NEW.total_tokens, NEW.cost_usd)
     ON CONFLICT DO UPDATE SET requests = requests + 1, errors = errors + excluded.errors,
       prompt_tokens = prompt_tokens + excluded.prompt_tokens, completion_tokens = completion_tokens + excluded.completion_tokens,
       total_tokens = total_tokens + excluded.total_tokens, cost_usd = cost_usd + excluded.cost_usd;`;
}

/**
 * Each entry moves the schema one version forward; `user_version` records how far a file got.
 * Never edit a shipped entry: append a new one.
 */
const MIGRATIONS: string[] = [
  `CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     secret_hash TEXT NOT NULL UNIQUE,
     secret_hint TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     revoked_at INTEGER,
     expires_at INTEGER,
     allowed_models TEXT,
     monthly_token_cap INTEGER,
     monthly_usd_cap REAL,
     rpm_limit INTEGER,
     tpm_limit INTEGER,
     rotated_at INTEGER
   );
   CREATE TABLE usage (
     id INTEGER PRIMARY KEY,
     ts INTEGER NOT NULL,
     request_id TEXT NOT NULL,
     key_id TEXT,
     endpoint TEXT NOT NULL,
     requested_model TEXT,
     provider TEXT,
     model TEXT,
     strategy TEXT,
     status INTEGER NOT NULL,
     error_type TEXT,
     stream INTEGER NOT NULL DEFAULT 0,
     prompt_tokens INTEGER NOT NULL DEFAULT 0,
     completion_tokens INTEGER NOT NULL DEFAULT 0,
     total_tokens INTEGER NOT NULL DEFAULT 0,
     input_price REAL,
     output_price REAL,
     cost_usd REAL NOT NULL DEFAULT 0,
     latency_ms REAL NOT NULL,
     first_byte_ms REAL,
     attempts TEXT NOT NULL
   );
   CREATE INDEX usage_ts ON usage(ts);
   CREATE INDEX usage_key_ts ON usage(key_id, ts);`,
  // Request and response content, for debugging only: written only when usage.contentLog is on.
  `CREATE TABLE content_log (
     request_id TEXT PRIMARY KEY,
     ts INTEGER NOT NULL,
     request TEXT NOT NULL,
     response TEXT
   );`,
  // A counter that only changes with the keys table, so the server notices a key the CLI changed
  // without reloading every key whenever a usage row is committed (SQLite's data_version moves
  // with every commit from another connection, the usage writer thread's included).
  `CREATE TABLE key_changes (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL);
   INSERT INTO key_changes (id, version) VALUES (1, 0);
   CREATE TRIGGER api_keys_inserted AFTER INSERT ON api_keys BEGIN UPDATE key_changes SET version = version + 1; END;
   CREATE TRIGGER api_keys_updated AFTER UPDATE ON api_keys BEGIN UPDATE key_changes SET version = version + 1; END;
   CREATE TRIGGER api_keys_deleted AFTER DELETE ON api_keys BEGIN UPDATE key_changes SET version = version + 1; END;`,
  // The last batch each usage writer thread committed, in the same transaction as its rows: if the
  // thread dies, the server replays only the batches after it (none twice). A row per running server.
  `CREATE TABLE usage_writers (token TEXT PRIMARY KEY, seq INTEGER NOT NULL);`,
  // The dashboard's queries (docs: renderer/API.md). The request log pages newest first by (ts, id)
  // under each of its filters; one request is found by its id. Rollups answer totals, series and
  // latency percentiles from small tables instead of a scan of the usage table: one per grouping
  // the dashboard shows, since a single table keyed by hour, provider, model and key would be
  // nearly as large as the usage table itself. They are kept by a trigger, so every insert path
  // (the writer thread, its main-thread fallback, the benchmark's generator) updates them in the
  // transaction that inserts the rows. NULL provider, model and key are stored as '': SQLite never
  // matches NULLs in a primary key, so upserts would duplicate.
  // Latency buckets are log-scale, 8 per doubling (each ~9 % wide): bucket b holds latencies in
  // (2^((b-1)/8), 2^(b/8)] ms, bucket 0 everything up to 1 ms.
  `ALTER TABLE usage ADD COLUMN route_reason TEXT;
   CREATE INDEX usage_request_id ON usage(request_id);
   CREATE INDEX usage_provider_ts ON usage(provider, ts);
   CREATE INDEX usage_model_ts ON usage(model, ts);
   CREATE INDEX usage_status_ts ON usage(status, ts);
   ${rollupTable('usage_daily', 'day', 'ts / 86400000', ['provider', 'model'])}
   ${rollupTable('usage_daily_keys', 'day', 'ts / 86400000', ['key_id'])}
   ${rollupTable('usage_hourly', 'hour', 'ts / 3600000', ['provider', 'model'])}
   ${rollupTable('usage_hourly_keys', 'hour', 'ts / 3600000', ['key_id'])}
   CREATE TABLE usage_latency_daily (
     day INTEGER NOT NULL,
     provider TEXT NOT NULL,
     bucket INTEGER NOT NULL,
     requests INTEGER NOT NULL,
     PRIMARY KEY (day, provider, bucket)
   ) WITHOUT ROWID;
   INSERT INTO usage_latency_daily
     SELECT ts / 86400000, provider, ${LATENCY_BUCKET('latency_ms')}, count(*)
       FROM usage WHERE status < 400 AND provider IS NOT NULL GROUP BY 1, 2, 3;
   CREATE TRIGGER usage_rollups AFTER INSERT ON usage BEGIN
     ${rollupUpsert('usage_daily', 'NEW.ts / 86400000', ['provider', 'model'])}
     ${rollupUpsert('usage_daily_keys', 'NEW.ts / 86400000', ['key_id'])}
     ${rollupUpsert('usage_hourly', 'NEW.ts / 3600000', ['provider', 'model'])}
     ${rollupUpsert('usage_hourly_keys', 'NEW.ts / 3600000', ['key_id'])}
     INSERT INTO usage_latency_daily
       SELECT NEW.ts / 86400000, NEW.provider, ${LATENCY_BUCKET('NEW.latency_ms')}, 1
        WHERE NEW.status < 400 AND NEW.provider IS NOT NULL
     ON CONFLICT DO UPDATE SET requests = requests + 1;
   END;`,
  // The usage writer's CPU per row had gone from 8 to 43 µs (bench/writer-cost.ts, batches of 500),
  // taken beside the request thread on a 2-core machine: /v1 lost 17 % of its throughput at 16 in
  // flight. Most of it was the trigger's five UPSERTs per row: the rollups are now added once per
  // batch, one grouped UPSERT per table, in the batch's transaction (core/usage/usage-rollups.ts). The indexes
  // stay: without (status, ts) a status no row has scans the whole range (320 ms on 1M rows), and
  // each costs about 1 µs per row.
  `DROP TRIGGER usage_rollups;`,
  // Prompt-cache and reasoning tokens (issue 16), each a part of prompt_tokens or completion_tokens,
  // not an addition: cache reads, cache writes by lifetime (Anthropic's 5-minute default and its
  // 1-hour writes, priced differently), and reasoning tokens. Old rows read as 0.
  `ALTER TABLE usage ADD COLUMN cache_read_tokens INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE usage ADD COLUMN cache_write_5m_tokens INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE usage ADD COLUMN cache_write_1h_tokens INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE usage ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;`,
  // What translation dropped or changed for the answering endpoint (issue 20): JSON
  // {"dropped": [...], "adjusted": [...]}, NULL when nothing was (and on old rows).
  `ALTER TABLE usage ADD COLUMN adjustments TEXT;`,
  // The label of the provider key that served (issue 22: several keys per provider), never the
  // key itself. Old rows and providers without keys read NULL.
  `ALTER TABLE usage ADD COLUMN provider_key TEXT;`,
  // Agent sessions (issue 22): who sent a request, as the client named it (never content), and what
  // its prompt cache saved against list prices (negative when a cache write cost more than it saved).
  // usage_sessions sums a session's rows per agent, day, provider, model and key, added per batch
  // like the other rollups, so the Sessions page reads a small table; a session's own requests come
  // from the usage table through (session_id, ts). The list scans the rollup in its key order (a
  // scan of 18,000 rows for 3 months of a million requests: 15 ms of CPU, half the cost of reaching
  // them through a day index and sorting). "Sessions with a 429" reads a partial (status, ts,
  // session_id) index alone (9 ms of CPU instead of 150 through (status, ts) for 30,000 rows);
  // widening (status, ts) itself instead made the planner take the provider index for the request
  // log's provider + status + key filter (27 -> 82 ms of CPU).
  `ALTER TABLE usage ADD COLUMN session_id TEXT;
   ALTER TABLE usage ADD COLUMN session_source TEXT;
   ALTER TABLE usage ADD COLUMN agent_id TEXT;
   ALTER TABLE usage ADD COLUMN parent_agent_id TEXT;
   ALTER TABLE usage ADD COLUMN cache_saved_usd REAL NOT NULL DEFAULT 0;
   CREATE INDEX usage_session_ts ON usage(session_id, ts) WHERE session_id IS NOT NULL;
   CREATE TABLE usage_sessions (
     session_id TEXT NOT NULL, agent_id TEXT NOT NULL, day INTEGER NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL, key_id TEXT NOT NULL,
     parent_agent_id TEXT NOT NULL, source TEXT NOT NULL, first_ts INTEGER NOT NULL, last_ts INTEGER NOT NULL,
     requests INTEGER NOT NULL, errors INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
     cache_read_tokens INTEGER NOT NULL, cache_write_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL, cache_saved_usd REAL NOT NULL,
     PRIMARY KEY (session_id, agent_id, day, provider, model, key_id)
   ) WITHOUT ROWID;
   CREATE INDEX usage_status_session ON usage(status, ts, session_id) WHERE session_id IS NOT NULL;`,
  // Why a request failed, in the words its answer gave the client (a 503 no_eligible_provider says
  // which breakers are open, a 429 insufficient_quota the cap and what was used), and whether a
  // fallback served it (an endpoint after one that failed): the request log shows both (issue 25).
  `ALTER TABLE usage ADD COLUMN error_message TEXT;
   ALTER TABLE usage ADD COLUMN fallback INTEGER NOT NULL DEFAULT 0;`,
  // The Usage page's tables (issue 25) per model and per key: sums, cached tokens and a latency
  // histogram per day, so a month's table is read from a few hundred rows, not by scanning the
  // usage table on the request thread (300,000 rows took seconds). bucket is the latency bucket of
  // successful requests (as usage_latency_daily's), -1 for failed ones. Failed attempts per model
  // (fallbacks' rescued ones included) have a table of their own. Both filled from the rows there.
  // (Dropped first: a test that winds a database back to an older schema runs this again.)
  `DROP TABLE IF EXISTS usage_breakdown_daily;
   DROP TABLE IF EXISTS usage_failed_attempts_daily;
   CREATE TABLE usage_breakdown_daily (
     day INTEGER NOT NULL, kind TEXT NOT NULL, grp TEXT NOT NULL, bucket INTEGER NOT NULL,
     requests INTEGER NOT NULL, errors INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
     cache_read_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL,
     PRIMARY KEY (day, kind, grp, bucket)
   ) WITHOUT ROWID;
   CREATE TABLE usage_failed_attempts_daily (
     day INTEGER NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL, failures INTEGER NOT NULL,
     PRIMARY KEY (day, provider, model)
   ) WITHOUT ROWID;
   ${BREAKDOWN_ROLLUPS.map((sql) => `${sql.replace(/(u\.)?id > \?/, '1')};`).join('\n')}`,
  // A session is its key's (issue 34): "sessions with a 429" reads (session, key) pairs, so the
  // partial index it reads alone carries the key too.
  `CREATE INDEX IF NOT EXISTS usage_status_session_key ON usage(status, ts, session_id, key_id) WHERE session_id IS NOT NULL;
   DROP INDEX IF EXISTS usage_status_session;`,
  // Issue 33: a model no price table knows (only its provider's list names it) has no cost. The row
  // keeps 0 in cost_usd, so sums stay sums, and says so here; the request log answers cost null.
  `ALTER TABLE usage ADD COLUMN price_unknown INTEGER NOT NULL DEFAULT 0;`,
  // What each request was for, as its agent said (issue 36: Claude Code's request class), and a
  // session's sums per class per day, so the Sessions page shows what compactions, subagents and
  // background calls cost beside the main turns. Rows from before read as class '' (not said).
  `ALTER TABLE usage ADD COLUMN request_class TEXT;
   CREATE TABLE usage_session_classes (
     session_id TEXT NOT NULL, key_id TEXT NOT NULL, request_class TEXT NOT NULL, day INTEGER NOT NULL,
     requests INTEGER NOT NULL, errors INTEGER NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL,
     PRIMARY KEY (session_id, key_id, request_class, day)
   ) WITHOUT ROWID;
   ${SESSION_CLASSES_ROLLUP.replace('id > ?', '1')};`,
];

/** Opens (creating if needed) the SQLite file in the data dir, in WAL mode, migrated to the latest schema. */
export function openDatabase(dataDir: string): PatchbayDatabase {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, 'patchbay.db');
  const db = new Database(path);
  // Private to the user even in a data dir that others can read; SQLite gives -wal and -shm the same mode.
  chmodSync(path, 0o600);
  db.pragma('journal_mode = WAL');
  // NORMAL in WAL mode is durable against process crashes (kill -9); only an OS crash may lose the last commits.
  db.pragma('synchronous = NORMAL');
  // Short: a writer that waits here blocks the event loop. A usage batch that meets a lock is retried later.
  db.pragma('busy_timeout = 200');
  // SQLite checkpoints the WAL inside whichever commit crosses this many pages, on the request
  // thread. At the default 1000 pages that commit stalls ~20 ms; at 100 it stalls ~4 ms, ten times as often.
  db.pragma('wal_autocheckpoint = 100');
  migrate(db);
  return db;
}

function migrate(db: PatchbayDatabase): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(`This Patchbay database (schema ${current}) was written by a newer Patchbay; update Patchbay to open it.`);
  }
  for (let version = current; version < MIGRATIONS.length; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
