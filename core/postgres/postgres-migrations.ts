import type pg from 'pg';
import { readVersion } from '../runtime/read-version.ts';
import { missingSchemaPrivilege, SCHEMA_PRIVILEGES_QUERY, type SchemaPrivileges } from './postgres-start-errors.ts';
import { oldestCompatibleSchema, planSchema, type DatabaseSchema } from './schema-compatibility.ts';
import { BREAKDOWN_ROLLUPS_FROM, sessionClassesInto } from './postgres-usage-rollups.ts';

/** Any 64-bit number only Patchbay takes: replicas starting together migrate one after the other. */
const MIGRATION_LOCK = 7_316_020_261_126;

const rollup = (table: string, unit: string, dimensions: string[]) =>
  `CREATE TABLE ${table} (
     ${unit} bigint NOT NULL, ${dimensions.map((d) => `${d} text NOT NULL`).join(', ')},
     requests bigint NOT NULL, errors bigint NOT NULL, prompt_tokens bigint NOT NULL, completion_tokens bigint NOT NULL,
     total_tokens bigint NOT NULL, cost_usd double precision NOT NULL,
     PRIMARY KEY (${unit}, ${dimensions.join(', ')}));`;

/**
 * PostgreSQL's schema, one entry per version (schema_version records how far a database got).
 * Never edit a shipped entry: append. The usage columns follow SQLite's (core/usage/open-database.ts):
 * a column added there is added here too, in a new entry. An entry only adds (expand); one that
 * removes or changes what an older release uses is a contract step, listed in
 * schema-compatibility.ts's CONTRACT_STEPS (see there: replicas of two releases share the database
 * during a rolling upgrade).
 */
export const POSTGRES_MIGRATIONS: string[] = [
  `CREATE SEQUENCE api_key_versions;
   CREATE TABLE api_keys (
     id text PRIMARY KEY,
     -- Bumped by every write, so a replica never replaces a key's newer state with an older read.
     version bigint NOT NULL DEFAULT nextval('api_key_versions'),
     name text NOT NULL,
     secret_hash text NOT NULL UNIQUE,
     secret_hint text NOT NULL,
     created_at bigint NOT NULL,
     revoked_at bigint,
     expires_at bigint,
     allowed_models text,
     monthly_token_cap bigint,
     monthly_usd_cap double precision,
     rpm_limit bigint,
     tpm_limit bigint,
     rotated_at bigint);
   CREATE TABLE usage (
     id bigserial PRIMARY KEY,
     ts bigint NOT NULL,
     request_id text NOT NULL,
     key_id text,
     endpoint text NOT NULL,
     requested_model text,
     provider text,
     model text,
     strategy text,
     status integer NOT NULL,
     error_type text,
     stream smallint NOT NULL DEFAULT 0,
     prompt_tokens bigint NOT NULL DEFAULT 0,
     completion_tokens bigint NOT NULL DEFAULT 0,
     total_tokens bigint NOT NULL DEFAULT 0,
     input_price double precision,
     output_price double precision,
     cost_usd double precision NOT NULL DEFAULT 0,
     latency_ms double precision NOT NULL,
     first_byte_ms double precision,
     attempts text NOT NULL,
     route_reason text,
     cache_read_tokens bigint NOT NULL DEFAULT 0,
     cache_write_5m_tokens bigint NOT NULL DEFAULT 0,
     cache_write_1h_tokens bigint NOT NULL DEFAULT 0,
     reasoning_tokens bigint NOT NULL DEFAULT 0);
   CREATE INDEX usage_ts ON usage (ts);
   CREATE INDEX usage_key_ts ON usage (key_id, ts);
   CREATE INDEX usage_request_id ON usage (request_id);
   CREATE INDEX usage_provider_ts ON usage (provider, ts);
   CREATE INDEX usage_model_ts ON usage (model, ts);
   CREATE INDEX usage_status_ts ON usage (status, ts);
   CREATE TABLE content_log (request_id text PRIMARY KEY, ts bigint NOT NULL, request text NOT NULL, response text);
   ${rollup('usage_daily', 'day', ['provider', 'model'])}
   ${rollup('usage_daily_keys', 'day', ['key_id'])}
   ${rollup('usage_hourly', 'hour', ['provider', 'model'])}
   ${rollup('usage_hourly_keys', 'hour', ['key_id'])}
   CREATE TABLE usage_latency_daily (day bigint NOT NULL, provider text NOT NULL, bucket integer NOT NULL, requests bigint NOT NULL, PRIMARY KEY (day, provider, bucket));
   -- The caps, shared by every replica: settled usage and what requests in flight hold, per key and month.
   CREATE TABLE key_budgets (
     key_id text NOT NULL, month bigint NOT NULL,
     used_tokens bigint NOT NULL, used_usd double precision NOT NULL,
     reserved_tokens bigint NOT NULL DEFAULT 0, reserved_usd double precision NOT NULL DEFAULT 0,
     PRIMARY KEY (key_id, month));
   -- One row per request in flight on a capped key, so a dead replica's holds can be given back.
   CREATE TABLE budget_reservations (
     id bigserial PRIMARY KEY, key_id text NOT NULL, month bigint NOT NULL, replica text NOT NULL,
     tokens bigint NOT NULL, usd double precision NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
   CREATE INDEX budget_reservations_replica ON budget_reservations (replica);
   -- Replicas alive: each refreshes its row every few seconds; one not seen for a while is dead.
   CREATE TABLE replicas (id text PRIMARY KEY, started_at timestamptz NOT NULL DEFAULT now(), seen_at timestamptz NOT NULL DEFAULT now());`,
  // What translation dropped or changed for the answering endpoint (issue 20; SQLite's migration 9).
  `ALTER TABLE usage ADD COLUMN adjustments text;`,
  // The label of the provider key that served (issue 22; SQLite's migration 10), never the key itself.
  `ALTER TABLE usage ADD COLUMN provider_key text;`,
  // Rate limits shared by the replicas (core/postgres/postgres-rate-windows.ts): per key, one row per
  // second with the requests and tokens admitted in it; admission is one call of patchbay_rate_admit.
  `CREATE TABLE key_rate_buckets (
     key_id text NOT NULL, second bigint NOT NULL, requests bigint NOT NULL, tokens bigint NOT NULL,
     PRIMARY KEY (key_id, second));
   CREATE FUNCTION patchbay_rate_admit(p_key text, p_rpm bigint, p_tpm bigint, p_tokens bigint)
     RETURNS TABLE (admitted boolean, second bigint, used_requests bigint, used_tokens bigint, retry_ms bigint)
     LANGUAGE plpgsql AS $fn$
   #variable_conflict use_column
   DECLARE
     now_ms bigint;
     now_s bigint;
     oldest bigint;
   BEGIN
     -- One admission per key at a time across every replica; held until this call commits. Each
     -- statement below takes a fresh snapshot (READ COMMITTED), so it sees the previous holder's bucket.
     PERFORM pg_advisory_xact_lock(7316, hashtext(p_key));
     now_ms := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
     now_s := now_ms / 1000;
     DELETE FROM key_rate_buckets b WHERE b.key_id = p_key AND b.second < now_s - 60;
     -- 61 one-second buckets: an admission counts for 60 to 61 s, never less than the minute.
     SELECT coalesce(sum(b.requests), 0), coalesce(sum(b.tokens), 0), min(b.second) INTO used_requests, used_tokens, oldest
       FROM key_rate_buckets b WHERE b.key_id = p_key;
     second := now_s;
     retry_ms := CASE WHEN oldest IS NULL THEN 0 ELSE (oldest + 61) * 1000 - now_ms END;
     IF (p_rpm IS NOT NULL AND used_requests + 1 > p_rpm) OR (p_tpm IS NOT NULL AND used_tokens + p_tokens > p_tpm) THEN
       admitted := false;
       RETURN NEXT;
       RETURN;
     END IF;
     INSERT INTO key_rate_buckets AS b (key_id, second, requests, tokens) VALUES (p_key, now_s, 1, p_tokens)
       ON CONFLICT ON CONSTRAINT key_rate_buckets_pkey DO UPDATE SET requests = b.requests + 1, tokens = b.tokens + p_tokens;
     admitted := true;
     used_requests := used_requests + 1;
     used_tokens := used_tokens + p_tokens;
     IF oldest IS NULL THEN retry_ms := (now_s + 61) * 1000 - now_ms; END IF;
     RETURN NEXT;
   END
   $fn$;`,
  // Issue 23: what the dashboard and CLI change, shared by the replicas (core/postgres/postgres-config-store.ts),
  // and the dashboard's sign-in codes and sessions (core/postgres/postgres-session-store.ts), as SHA-256 hashes only.
  `-- A sequence, not a counter in the row: seeded again after a DELETE, the config still moves forward for every replica.
   CREATE SEQUENCE gateway_config_revisions;
   CREATE TABLE gateway_config (
     id smallint PRIMARY KEY CHECK (id = 1),
     revision bigint NOT NULL,
     -- JSON of config.json's shared sections (routing, providers, usage), text to keep the order written.
     shared text NOT NULL,
     paused boolean NOT NULL DEFAULT false,
     updated_at timestamptz NOT NULL DEFAULT now());
   CREATE TABLE dashboard_codes (code_hash text PRIMARY KEY, expires_at bigint NOT NULL);
   CREATE TABLE dashboard_sessions (
     id_hash text PRIMARY KEY, token_hash text NOT NULL,
     created_at bigint NOT NULL, last_seen bigint NOT NULL);`,
  // Agent sessions (issue 22; SQLite's migration 11), why a request failed and whether a fallback
  // served it (SQLite's 12), and the Usage page's tables per model and key (SQLite's 13), filled
  // from the rows already there. Text that the dashboard sorts and pages by (session ids, groups)
  // is compared byte by byte ("C"), as SQLite does, so both backends page in the same order.
  `ALTER TABLE usage ADD COLUMN session_id text, ADD COLUMN session_source text, ADD COLUMN agent_id text, ADD COLUMN parent_agent_id text,
     ADD COLUMN cache_saved_usd double precision NOT NULL DEFAULT 0, ADD COLUMN error_message text, ADD COLUMN fallback smallint NOT NULL DEFAULT 0;
   CREATE INDEX usage_session_ts ON usage (session_id, ts) WHERE session_id IS NOT NULL;
   CREATE INDEX usage_status_session ON usage (status, ts, session_id) WHERE session_id IS NOT NULL;
   CREATE TABLE usage_sessions (
     session_id text COLLATE "C" NOT NULL, agent_id text COLLATE "C" NOT NULL, day bigint NOT NULL, provider text COLLATE "C" NOT NULL,
     model text COLLATE "C" NOT NULL, key_id text COLLATE "C" NOT NULL, parent_agent_id text COLLATE "C" NOT NULL, source text COLLATE "C" NOT NULL,
     first_ts bigint NOT NULL, last_ts bigint NOT NULL, requests bigint NOT NULL, errors bigint NOT NULL, prompt_tokens bigint NOT NULL,
     completion_tokens bigint NOT NULL, cache_read_tokens bigint NOT NULL, cache_write_tokens bigint NOT NULL, cost_usd double precision NOT NULL,
     cache_saved_usd double precision NOT NULL,
     PRIMARY KEY (session_id, agent_id, day, provider, model, key_id));
   CREATE TABLE usage_breakdown_daily (
     day bigint NOT NULL, kind text NOT NULL, grp text COLLATE "C" NOT NULL, bucket integer NOT NULL,
     requests bigint NOT NULL, errors bigint NOT NULL, prompt_tokens bigint NOT NULL, completion_tokens bigint NOT NULL,
     cache_read_tokens bigint NOT NULL, cost_usd double precision NOT NULL,
     PRIMARY KEY (day, kind, grp, bucket));
   CREATE TABLE usage_failed_attempts_daily (
     day bigint NOT NULL, provider text COLLATE "C" NOT NULL, model text COLLATE "C" NOT NULL, failures bigint NOT NULL,
     PRIMARY KEY (day, provider, model));
   ${BREAKDOWN_ROLLUPS_FROM('usage').map((sql) => `${sql};`).join('\n')}`,
  // A session is its key's (issue 34): the status filter of the Sessions list reads (session, key)
  // pairs. Expand only: the older index stays for a release that still reads it (its removal is a
  // later contract step, schema-compatibility.ts).
  `CREATE INDEX usage_status_session_key ON usage (status, ts, session_id, key_id) WHERE session_id IS NOT NULL;`,
  // Issue 33: the catalog `patchbay models update` fetched, shared by the replicas (core/postgres/postgres-catalog-store.ts).
  `CREATE SEQUENCE gateway_catalog_revisions;
   CREATE TABLE gateway_catalog (
     id smallint PRIMARY KEY CHECK (id = 1),
     revision bigint NOT NULL,
     prices_as_of text NOT NULL,
     -- The catalog's JSON (core/catalog/catalog-schema.ts), text to keep it as written.
     data text NOT NULL,
     updated_at timestamptz NOT NULL DEFAULT now());
   -- A model no price table knows has no cost: cost_usd keeps 0 (sums stay sums) and this says so (SQLite's migration 16).
   ALTER TABLE usage ADD COLUMN price_unknown smallint NOT NULL DEFAULT 0;`,
  // What each request was for, as its agent said, and a session's sums per class per day
  // (issue 36; SQLite's migration that adds request_class), filled from the rows already there (class '': not said).
  `ALTER TABLE usage ADD COLUMN request_class text;
   CREATE TABLE usage_session_classes (
     session_id text COLLATE "C" NOT NULL, key_id text COLLATE "C" NOT NULL, request_class text COLLATE "C" NOT NULL, day bigint NOT NULL,
     requests bigint NOT NULL, errors bigint NOT NULL, prompt_tokens bigint NOT NULL, completion_tokens bigint NOT NULL, cost_usd double precision NOT NULL,
     PRIMARY KEY (session_id, key_id, request_class, day));
   ${sessionClassesInto('usage')};`,
];

/**
 * Brings the database to this Patchbay's schema, under a session advisory lock: two replicas
 * starting together take turns, and the second finds the work done. A database a newer Patchbay
 * migrated is used as it is while its schema still works with this one (expand steps; see
 * schema-compatibility.ts), else refused with what to run instead. Before creating anything, the
 * user's CREATE privilege on the schema is checked, so a missing grant is named, not met halfway.
 * Returns a note for the log when the database is newer than this Patchbay.
 */
export async function migratePostgres(pool: pg.Pool, migrations: readonly string[] = POSTGRES_MIGRATIONS): Promise<{ note: string | null }> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const exists = await client.query<{ found: boolean }>(`SELECT to_regclass('schema_version') IS NOT NULL AS found`);
    const database = exists.rows[0].found ? await readSchema(client) : { version: 0, oldestCompatible: null, writtenBy: null };
    // The release recorded beside the schema it migrates a database to.
    const release = readVersion();
    const plan = planSchema(database, { schema: migrations.length, release });
    if (plan.action === 'refuse') throw plan.error;
    if (plan.action !== 'migrate') return { note: plan.action === 'use-newer' ? plan.note : null };
    const privileges = await client.query<SchemaPrivileges>(SCHEMA_PRIVILEGES_QUERY);
    const missing = missingSchemaPrivilege(privileges.rows[0]);
    if (missing) throw missing;
    await client.query(`CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL);
      ALTER TABLE schema_version ADD COLUMN IF NOT EXISTS oldest_compatible integer, ADD COLUMN IF NOT EXISTS written_by text`);
    if ((await client.query('SELECT 1 FROM schema_version')).rowCount === 0) await client.query('INSERT INTO schema_version (version) VALUES (0)');
    for (let current = plan.from; current < plan.to; current++) {
      await client.query('BEGIN');
      try {
        await client.query(migrations[current]);
        await client.query('UPDATE schema_version SET version = $1, oldest_compatible = $2, written_by = $3', [current + 1, oldestCompatibleSchema(current + 1), release]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    }
    return { note: null };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
}

/** schema_version's row; its compatibility columns are missing on a database no Patchbay of this rule has migrated. */
async function readSchema(client: pg.PoolClient): Promise<DatabaseSchema> {
  const found = await client.query<{ version: number; oldest_compatible?: number | null; written_by?: string | null }>('SELECT * FROM schema_version');
  const row = found.rows[0];
  return { version: row?.version ?? 0, oldestCompatible: row?.oldest_compatible ?? null, writtenBy: row?.written_by ?? null };
}
