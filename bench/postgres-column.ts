// The PostgreSQL column on its own: the bare Node proxy (floor), Patchbay on SQLite and Patchbay on
// PostgreSQL (a throwaway cluster, bench/postgres-patchbay.ts), the same upstream and load generator,
// segments interleaved over rounds (direct, floor, SQLite, PostgreSQL; the order of the last three
// turned round every round). Per concurrency it prints p50, the added p50 (p50 minus the same
// round's p50 direct to the upstream, median over rounds), the CPU per request of each process and
// req/s, and for PostgreSQL the server's own CPU per request beside Patchbay's (SQLite's writes run
// inside Patchbay's process); then PostgreSQL − SQLite. `npm run bench` has the same column in its chat rows.
//
// Three keys: the default is the bench's (rate limits: on PostgreSQL one call to the replicas'
// shared windows per request, in memory on SQLite); --unlimited, a key without limits or caps (no
// database round trip on the request path on either backend); --capped, rate limits and a monthly
// token cap (also one reservation and one settlement per request on PostgreSQL). Every answer is
// checked, and each Patchbay's usage rows are counted against the requests it answered.
//
//   node bench/postgres-column.ts [--unlimited | --capped] [--quick] [--rounds 5] [--concurrency 1,16]
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { postgresMissing, startPostgresPatchbay, type PostgresPatchbay } from './postgres-patchbay.ts';
import { cpuMs, startFloorProxy, startLoadGen, startPatchbay, startUpstream, type Managed, type PatchbayProcess } from './procs.ts';
import { fmt, percentiles } from './stats.ts';
import { chatBody } from './wire.ts';

const { values } = parseArgs({
  options: {
    capped: { type: 'boolean', default: false },
    unlimited: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    concurrency: { type: 'string', default: '1,16' },
  },
});
const missing = postgresMissing();
if (missing) {
  process.stderr.write(`${missing}.\n`);
  process.exit(0);
}
const rounds = Number(values.rounds ?? (values.quick ? 1 : 5));
const segmentMs = values.quick ? 700 : 1500;
const concurrencies = values.concurrency.split(',').map(Number);
const env: Record<string, string> = { ...(values.capped ? { BENCH_TOKEN_CAP: '1000000000000' } : {}), ...(values.unlimited ? { BENCH_NO_RATE_LIMITS: '1' } : {}) };
const keyKind = values.unlimited ? 'key without limits or caps' : values.capped ? 'key with rate limits and a monthly token cap' : 'key with rate limits only';

type Name = 'direct' | 'floor' | 'sqlite' | 'postgres';
const LABELS: Record<Name, string> = { direct: 'direct', floor: 'bare Node proxy (floor)', sqlite: 'Patchbay on SQLite', postgres: 'Patchbay on PostgreSQL' };

const children: Managed[] = [];
let postgres: PostgresPatchbay | null = null;
let sqlite: PatchbayProcess | null = null;
let failed = false;
try {
  const upstream = await startUpstream();
  children.push(upstream);
  const loadgen = startLoadGen();
  children.push(loadgen);
  const floor = await startFloorProxy(upstream.port);
  children.push(floor);
  sqlite = await startPatchbay(upstream.port, [], env);
  postgres = await startPostgresPatchbay(upstream.port, env);
  const targets: { name: Name; origin: string; path: string; key: string; model: string; pid: number | null }[] = [
    { name: 'direct', origin: `http://127.0.0.1:${upstream.port}`, path: '/direct/v1/chat/completions', key: 'sk-bench-direct', model: 'llama-3.3-70b-versatile', pid: null },
    { name: 'floor', origin: floor.url, path: '/v1/chat/completions', key: 'sk-bench-floor', model: 'llama-3.3-70b-versatile', pid: floor.pid },
    { name: 'sqlite', origin: sqlite.url, path: '/v1/chat/completions', key: sqlite.key, model: 'llama-3.3-70b', pid: sqlite.pid },
    { name: 'postgres', origin: postgres.process.url, path: '/v1/chat/completions', key: postgres.process.key, model: 'llama-3.3-70b', pid: postgres.process.pid },
  ];
  const served = { sqlite: 0, postgres: 0 };
  const figures = new Map<string, { p50: number[]; added: number[]; cpu: number[]; serverCpu: number[]; rps: number[] }>();
  const segment = async (target: (typeof targets)[number], concurrency: number, durationMs: number, maxRequests = 1e9) => {
    const cpuBefore = target.pid ? cpuMs(target.pid) : 0;
    const serverBefore = target.name === 'postgres' ? postgres!.serverCpuMs() : 0;
    const result = await loadgen.run({
      kind: 'chat',
      origin: target.origin,
      path: target.path,
      headers: { authorization: `Bearer ${target.key}` },
      body: chatBody(target.model, false),
      concurrency,
      durationMs,
      maxRequests,
      streamChunks: 0,
    });
    if (result.errors) throw new Error(`${LABELS[target.name]}: ${result.errors} wrong answers, e.g. ${result.errorSamples.join(' | ')}`);
    if (target.name === 'sqlite' || target.name === 'postgres') served[target.name] += result.count;
    return {
      p50: percentiles(result.latencies, [50])[0],
      cpu: target.pid ? ((cpuMs(target.pid) - cpuBefore) * 1000) / result.count : NaN,
      serverCpu: target.name === 'postgres' ? ((postgres!.serverCpuMs() - serverBefore) * 1000) / result.count : NaN,
      rps: (result.count / result.elapsedMs) * 1000,
    };
  };

  process.stderr.write(`[postgres-column] warm-up; then ${rounds} round(s) of ${segmentMs} ms segments at concurrency ${concurrencies.join(', ')}, ${keyKind} ...\n`);
  for (const target of targets) {
    await segment(target, 1, 10_000, values.quick ? 500 : 2000);
    await segment(target, 16, 10_000, values.quick ? 2000 : 6000);
  }
  for (let round = 0; round < rounds; round++) {
    const gateways = targets.slice(1);
    const order = [targets[0], ...(round % 2 ? [...gateways].reverse() : gateways)];
    for (const concurrency of concurrencies) {
      let direct = NaN;
      for (const target of order) {
        const measured = await segment(target, concurrency, segmentMs);
        if (target.name === 'direct') direct = measured.p50;
        const key = `${target.name} ${concurrency}`;
        const entry = figures.get(key) ?? { p50: [], added: [], cpu: [], serverCpu: [], rps: [] };
        entry.p50.push(measured.p50);
        entry.added.push(measured.p50 - direct);
        entry.cpu.push(measured.cpu);
        entry.serverCpu.push(measured.serverCpu);
        entry.rps.push(measured.rps);
        figures.set(key, entry);
      }
    }
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const lines = [
    `# The PostgreSQL column (${values.quick ? 'quick' : `${rounds} rounds`}; ${keyKind})`,
    '',
    '| concurrency | target | p50 ms | added p50 ms | CPU µs/request | + PostgreSQL server µs/request | req/s |',
    '| ---: | --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  const summary: string[] = [];
  for (const concurrency of concurrencies) {
    for (const target of targets) {
      const f = figures.get(`${target.name} ${concurrency}`)!;
      lines.push(
        `| ${concurrency} | ${LABELS[target.name]} | ${fmt(median(f.p50), 3)} | ${target.name === 'direct' ? '' : fmt(median(f.added), 3)} | ${target.pid ? fmt(median(f.cpu), 0) : ''} | ${target.name === 'postgres' ? fmt(median(f.serverCpu), 0) : ''} | ${fmt(median(f.rps), 0)} |`,
      );
    }
    const s = figures.get(`sqlite ${concurrency}`)!;
    const p = figures.get(`postgres ${concurrency}`)!;
    summary.push(
      `concurrency ${concurrency}: PostgreSQL − SQLite added p50 ${fmt(median(p.added) - median(s.added), 3)} ms, Patchbay's CPU ${fmt(median(p.cpu) - median(s.cpu), 0)} µs/request` +
        ` (${fmt(median(p.cpu) + median(p.serverCpu) - median(s.cpu), 0)} with the PostgreSQL server's)`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n${summary.join('\n')}\n`);

  // Every answered request has its usage row, on both backends.
  await sqlite.stop(40_000);
  await postgres.process.stop(40_000);
  const db = new Database(join(sqlite.dataDir, 'patchbay.db'), { readonly: true });
  const sqliteRows = (db.prepare('SELECT count(*) AS n FROM usage').get() as { n: number }).n;
  db.close();
  const postgresRows = (await postgres.usageRows()).rows;
  process.stdout.write(`usage rows: SQLite ${sqliteRows} for ${served.sqlite} requests, PostgreSQL ${postgresRows} for ${served.postgres} requests\n`);
  if (sqliteRows !== served.sqlite || postgresRows !== served.postgres) {
    process.stderr.write('A usage row is missing: the figures are not to be trusted.\n');
    failed = true;
  }
} finally {
  for (const child of [...children, ...(sqlite ? [sqlite] : []), ...(postgres ? [postgres.process] : [])]) await child.stop(5_000);
  if (sqlite) rmSync(sqlite.dataDir, { recursive: true, force: true });
  if (postgres) {
    rmSync(postgres.process.dataDir, { recursive: true, force: true });
    await postgres.stopCluster();
  }
}
process.exitCode = failed ? 1 : 0;
