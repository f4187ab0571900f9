// Patchbay on PostgreSQL for the bench: a throwaway cluster (test/helpers/start-postgres.ts: initdb +
// pg_ctl in a temp dir, loopback, fsync off like the tests), a fresh database, and `patchbay serve`
// with PATCHBAY_DATABASE_URL, its key made the same way as the SQLite Patchbay's (procs.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { postgresBinDir, startPostgres } from '../test/helpers/start-postgres.ts';
import { cpuMs, startPatchbay, ticksPerSecond, type PatchbayProcess } from './procs.ts';

export interface PostgresPatchbay {
  process: PatchbayProcess;
  /** Usage rows in the database (read after the process stopped: every answered request has one). */
  usageRows(): Promise<{ rows: number; ok: number }>;
  /**
   * CPU the PostgreSQL server has used so far, in ms: the postmaster and its live children (the
   * backends serving Patchbay's pool, the writer, the WAL writer ...) plus the children it reaped.
   * On SQLite the database work runs inside Patchbay's process (its writer thread); on PostgreSQL
   * it runs here, so a fair CPU per request adds this one's share.
   */
  serverCpuMs(): number;
  /** Stops the cluster (the Patchbay process is stopped by its owner first). */
  stopCluster(): Promise<void>;
}

/** Why the PostgreSQL column cannot run here, or null when it can. */
export function postgresMissing(): string | null {
  return postgresBinDir() ? null : 'PostgreSQL is not installed (no initdb found): the PostgreSQL column is skipped (apt-get install postgresql, as `npm test` does, to get it)';
}

export async function startPostgresPatchbay(upstreamPort: number, env: Record<string, string> = {}): Promise<PostgresPatchbay> {
  const cluster = await startPostgres();
  try {
    const url = await cluster.createDatabase();
    const process = await startPatchbay(upstreamPort, [], { ...env, PATCHBAY_DATABASE_URL: url });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const dataDirectory = (await client.query<{ setting: string }>("SELECT setting FROM pg_settings WHERE name = 'data_directory'")).rows[0].setting;
    await client.end();
    const postmaster = Number(readFileSync(join(dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return {
      process,
      serverCpuMs() {
        const stat = readFileSync(`/proc/${postmaster}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        // utime, stime, cutime, cstime (fields 14-17): its own time and its reaped children's.
        let total = ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / ticksPerSecond();
        for (const child of readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8').split(' ').filter(Boolean)) {
          try {
            total += cpuMs(Number(child));
          } catch {
            // Gone meanwhile: its time is in cutime/cstime from now on (counted at the next reading).
          }
        }
        return total;
      },
      async usageRows() {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          const { rows } = await client.query<{ rows: string; ok: string }>('SELECT count(*) AS rows, count(*) FILTER (WHERE status = 200) AS ok FROM usage');
          return { rows: Number(rows[0].rows), ok: Number(rows[0].ok) };
        } finally {
          await client.end();
        }
      },
      stopCluster: () => cluster.stop(),
    };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}
