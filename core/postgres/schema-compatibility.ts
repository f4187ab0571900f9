import { SchemaTooNewError } from './postgres-start-errors.ts';

/**
 * Expand, then contract. During a rolling upgrade the old and the new Patchbay run on one database,
 * and an old replica may restart meanwhile (a crash, a host reboot). So a migration only adds what
 * older Patchbays do not see: tables, columns that are nullable or have a default, indexes,
 * functions under new names. Older Patchbays then keep working on the migrated database.
 *
 * A step that removes or changes what an older Patchbay still uses (drop or rename a column, make
 * one NOT NULL, change a function's signature) is a contract step: it ships in a release after
 * one that stopped using the old thing, and is listed here with the oldest schema that still works
 * on the database after it. Patchbays older than that refuse the database and say which release
 * to run instead. Rolling back past a contract step means restoring a backup.
 *
 * Schemas up to BASELINE_SCHEMA were written before this rule: each Patchbay of that time refuses
 * any newer schema, so a database at schema N <= BASELINE_SCHEMA works with schema N and up only.
 */
export const BASELINE_SCHEMA = 6;

/** Contract steps: the migration's schema number -> the oldest schema that works after it. */
export const CONTRACT_STEPS: ReadonlyMap<number, number> = new Map();

/** The oldest Patchbay schema that can use a database migrated to `version`. */
export function oldestCompatibleSchema(version: number, contracts: ReadonlyMap<number, number> = CONTRACT_STEPS): number {
  let oldest = Math.min(version, BASELINE_SCHEMA);
  for (const [step, compatible] of contracts) if (step <= version) oldest = Math.max(oldest, compatible);
  return oldest;
}

/** What schema_version says of a database. */
export interface DatabaseSchema {
  version: number;
  /** Written by Patchbays that know this rule; null before (then the version itself is the oldest that works). */
  oldestCompatible: number | null;
  /** The Patchbay release that last migrated the database, when known. */
  writtenBy: string | null;
}

export type SchemaPlan =
  | { action: 'migrate'; from: number; to: number }
  | { action: 'use' }
  /** A newer Patchbay expanded the schema; this one runs on it unchanged (a rolling upgrade in progress). */
  | { action: 'use-newer'; note: string }
  | { action: 'refuse'; error: SchemaTooNewError };

/** What a Patchbay knowing `codeSchema` migrations does with a database: migrate it, use it as it is, or refuse it. */
export function planSchema(database: DatabaseSchema, code: { schema: number; release: string }): SchemaPlan {
  if (database.version < code.schema) return { action: 'migrate', from: database.version, to: code.schema };
  if (database.version === code.schema) return { action: 'use' };
  const oldest = database.oldestCompatible ?? database.version;
  const by = database.writtenBy ? `Patchbay ${database.writtenBy}` : 'a newer Patchbay';
  if (oldest <= code.schema) {
    return {
      action: 'use-newer',
      note: `The database's schema (${database.version}, from ${by}) is newer than this Patchbay's (${code.release}, schema ${code.schema}) and still works with it (its new parts only add); fine during a rolling upgrade. Upgrade this replica too when you can.`,
    };
  }
  return {
    action: 'refuse',
    error: new SchemaTooNewError(
      `This PostgreSQL database is at schema ${database.version} (migrated by ${by}), which works only with Patchbay releases of schema ${oldest} or newer; this Patchbay (${code.release}) is schema ${code.schema}. ` +
        `Run ${database.writtenBy ? `Patchbay ${database.writtenBy} or newer` : 'the release the other replicas run'} on this replica as well: an upgrade goes forward only (docs/team.md, "Rolling restarts and upgrades").`,
    ),
  };
}
