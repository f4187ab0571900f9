// The PostgreSQL column: the same Patchbay build on SQLite (A) and on PostgreSQL (B), same upstream
// and load generator, through bench/compare-builds.ts, against a throwaway cluster
// (test/helpers/start-postgres.ts). Run three ways: --unlimited, a key without limits or caps (no
// database round trip on the request path on either backend); the default, a key with rate limits
// (on PostgreSQL one call to the replicas' shared windows per request, in memory on SQLite); and
// --capped, rate limits and a monthly token cap (also one reservation and one settlement per
// request on PostgreSQL).
//
//   node bench/postgres-column.ts [--unlimited | --capped] [--rounds 3] [--concurrency 1,16]
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startPostgres } from '../test/helpers/start-postgres.ts';

const { values } = parseArgs({ options: { capped: { type: 'boolean', default: false }, unlimited: { type: 'boolean', default: false }, rounds: { type: 'string', default: '3' }, concurrency: { type: 'string', default: '1,16' } } });
const cluster = await startPostgres();
try {
  const url = await cluster.createDatabase();
  const cap = `${values.capped ? ' BENCH_TOKEN_CAP=1000000000000' : ''}${values.unlimited ? ' BENCH_NO_RATE_LIMITS=1' : ''}`;
  const bin = join(import.meta.dirname, '..', 'bin', 'patchbay.js');
  console.log(`A = SQLite, B = PostgreSQL, ${values.unlimited ? 'key without limits or caps' : values.capped ? 'key with rate limits and a monthly token cap' : 'key with rate limits only'}`);
  const run = spawnSync(
    process.execPath,
    [join(import.meta.dirname, 'compare-builds.ts'), bin, bin, '--rounds', values.rounds, '--concurrency', values.concurrency, `--env-a=${cap.trim()}`, `--env-b=PATCHBAY_DATABASE_URL=${url}${cap}`],
    { stdio: 'inherit' },
  );
  process.exitCode = run.status ?? 1;
} finally {
  await cluster.stop();
}
