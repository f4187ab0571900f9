import { DatabaseStartError } from './database-unavailable.ts';

/** The database was migrated past what this Patchbay can use (a contract step): run a newer release. */
export class SchemaTooNewError extends DatabaseStartError {}

/** The PostgreSQL user lacks a privilege the migrations need; the message names it and the SQL that grants it. */
export class DatabasePrivilegeError extends DatabaseStartError {}

/** Where Patchbay tried to connect, for the messages: the URL without its password, the user and the database. */
export interface DatabaseTarget {
  /** Redacted: never the password. */
  url: string;
  user: string;
  database: string;
}

/** What the privilege query answers about the connecting user in the migrations' schema. */
export interface SchemaPrivileges {
  user: string;
  database: string;
  /** The schema new tables go to; null when the user may use no schema of its search_path. */
  schema: string | null;
  canCreate: boolean;
}

/** Asked before migrating: who connects, where tables would go, and whether they may be created there. */
export const SCHEMA_PRIVILEGES_QUERY = `SELECT current_user AS "user", current_database() AS "database", current_schema() AS "schema",
  coalesce(has_schema_privilege(current_schema(), 'CREATE'), false) AS "canCreate"`;

const CREATE_DATABASE_DOCS = 'docs/team.md, "Create the database"';

/** The privilege a migration needs and lacks, as an error naming it and the SQL that grants it; null when nothing is missing. */
export function missingSchemaPrivilege(facts: SchemaPrivileges): DatabasePrivilegeError | null {
  const schema = facts.schema ?? 'public';
  const grant = `psql -d ${facts.database} -c 'GRANT USAGE, CREATE ON SCHEMA ${schema} TO ${facts.user}'`;
  if (facts.schema === null) {
    return new DatabasePrivilegeError(
      `PostgreSQL user "${facts.user}" lacks the USAGE privilege on schema "public" of database "${facts.database}" (no schema of its search_path is usable), so Patchbay cannot create its tables. As a superuser or the schema's owner, run: ${grant} (${CREATE_DATABASE_DOCS}).`,
    );
  }
  if (!facts.canCreate) {
    return new DatabasePrivilegeError(
      `PostgreSQL user "${facts.user}" lacks the CREATE privilege on schema "${schema}" of database "${facts.database}", so Patchbay cannot create its tables (PostgreSQL 15 no longer grants it to everyone). As a superuser or the schema's owner, run: ${grant} (${CREATE_DATABASE_DOCS}).`,
    );
  }
  return null;
}

/** The SQLSTATE of a pg error, or the errno code of a socket error (ECONNREFUSED ...); undefined otherwise. */
function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/**
 * Why Patchbay cannot start on PostgreSQL, told by the error's SQLSTATE (or socket errno), never by
 * its text: each kind names what to fix, and only a connection that failed says to check that
 * PostgreSQL runs. Errors Patchbay raised itself (a privilege, a schema too new) keep their message.
 */
export function describeDatabaseStartError(error: unknown, target: DatabaseTarget): string {
  if (error instanceof DatabaseStartError) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  const detail = (error as { detail?: unknown } | null)?.detail;
  const said = typeof detail === 'string' && detail ? `${message} (${detail})` : message;
  const code = codeOf(error);
  const where = `PostgreSQL at ${target.url}`;
  if (code === undefined || UNREACHABLE.has(code) || code.startsWith('08') || code === '57P03') {
    return `Cannot reach ${where}: ${said}. Check that PostgreSQL is running and reachable there (host, port, listen_addresses, firewall), then start again.`;
  }
  if (code === '28P01') {
    return `${where} refused the password of user "${target.user}": ${said}. Fix the password in --database / PATCHBAY_DATABASE_URL (or ~/.pgpass, PGPASSWORD).`;
  }
  if (code.startsWith('28')) {
    return `${where} does not let user "${target.user}" connect to database "${target.database}": ${said}. Check the role exists and may log in (CREATE ROLE ... LOGIN), and that pg_hba.conf has a line for this user, database and address.`;
  }
  if (code === '3D000') {
    return `${where} has no database "${target.database}": create it, owned by "${target.user}" (${CREATE_DATABASE_DOCS}), or fix the name in --database / PATCHBAY_DATABASE_URL.`;
  }
  if (code === '42501') {
    return `PostgreSQL user "${target.user}" lacks a privilege Patchbay needs in database "${target.database}": ${said}. As a superuser, run: GRANT CONNECT ON DATABASE ${target.database} TO ${target.user}; and in that database: GRANT USAGE, CREATE ON SCHEMA public TO ${target.user}; Patchbay's tables must belong to "${target.user}" (${CREATE_DATABASE_DOCS}).`;
  }
  if (code === '53300') {
    return `${where} has no connection slot left: ${said}. Each replica holds up to 12 connections; raise max_connections or run fewer replicas.`;
  }
  return `Cannot use ${where}: ${said} (SQLSTATE ${code}).`;
}

/** The user and database a URL names (what libpq would default to otherwise is named as such). */
export function databaseTarget(url: string, redacted: string, env: NodeJS.ProcessEnv = process.env): DatabaseTarget {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    // Described as "the URL" below.
  }
  const user = (parsed?.username ? decodeURIComponent(parsed.username) : '') || env.PGUSER || env.USER || 'the connecting user';
  const database = (parsed?.pathname.slice(1) ? decodeURIComponent(parsed.pathname.slice(1)) : '') || env.PGDATABASE || user;
  return { url: redacted, user, database };
}
