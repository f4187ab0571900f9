// Patchbay's benchmark (`npm run bench`, `npm run bench -- --quick`, `npm run bench -- --profile`).
//
// One run measures four targets against the same zero-latency loopback upstream, interleaved in
// rounds (direct, floor, Patchbay, Portkey, direct, floor ...): direct to the upstream, through a
// bare Node pass-through proxy (floor-proxy.mjs: node:http + undici and nothing else, the floor any
// Node gateway stands on, a reference column), through Patchbay (`patchbay serve`, everything on),
// and through the Portkey AI gateway. Every answer is
// checked (a 200 with the right body) and the upstream's request count must match what was sent;
// the bench exits non-zero when anything was wrong, and 0 otherwise even when a target is missed.
// Results: a markdown table on stdout and in bench/results/latest.md, JSON in bench/results/latest.json.
import Database from 'better-sqlite3';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Job, JobKind, JobResult } from './loadgen.ts';
import { postgresMissing, startPostgresPatchbay, type PostgresPatchbay } from './postgres-patchbay.ts';
import { runProfile } from './profile.ts';
import { runSoak } from './soak.ts';
import { BENCH_DIR, cpuMs, memoryMb, portkeyVersions, sleep, startFloorProxy, startLoadGen, startPatchbay, startPortkey, startUpstream, type LoadGen, type Managed } from './procs.ts';
import { concat, fmt, mean, percentiles, round } from './stats.ts';
import { chatBody, embeddingBody } from './wire.ts';

const HELP = `Usage: npm run bench [-- --quick | --profile [--seconds N] | --soak SECONDS]

  (no flag)   the full run: about 4 minutes on a 2-core machine
  --quick     a smoke run of about a minute (1 round, short segments, a 15k-request leak check)
  --profile   profile Patchbay under load with node --cpu-prof and print its top self-time costs
  --seconds N how long the profiled load runs (default 12)
  --soak S    Patchbay alone under chat at concurrency 16 for S seconds (600: the 10-minute soak), RSS after warm-up and at the end
`;

interface Settings {
  rounds: number;
  chatMs: number;
  concurrencies: number[];
  streamsPerRound: number;
  /** Streams per target in the warm-up, at concurrency 16 with no gap between chunks (see the warm-up comment). */
  warmupStreams: number;
  streamChunks: number;
  streamDelayMs: number;
  embeddingsMs: number;
  slowMs: number;
  slowConcurrency: number;
  slowDelayMs: number;
  /** Chat requests at concurrency 1 in the warm-up. */
  warmupC1: number;
  /** Run one whole round, unmeasured, after checkpoint A (see the warm-up comment). */
  warmupRound: boolean;
  /** RSS is compared after this many requests ... */
  checkpointA: number;
  /** ... and after this many. */
  checkpointB: number;
  /** Longest a gateway's soak (the run up to checkpoint B) may take. */
  soakCapMs: number;
  /** The soaks end by this time after the start, whatever they reached, so the run stays bounded. */
  budgetMs: number;
}

const FULL: Settings = {
  rounds: 3,
  chatMs: 1500,
  concurrencies: [1, 16, 64],
  streamsPerRound: 12,
  warmupStreams: 2000,
  streamChunks: 20,
  streamDelayMs: 5,
  embeddingsMs: 1500,
  slowMs: 2500,
  slowConcurrency: 256,
  slowDelayMs: 50,
  warmupC1: 2000,
  warmupRound: true,
  checkpointA: 10_000,
  checkpointB: 100_000,
  soakCapMs: 110_000,
  // Soaks end 240 s after the start at the latest: with stopping and the report, the run stays
  // within about 250 s (Portkey soaks last and is the one cut short on a slower machine).
  budgetMs: 240_000,
};

const QUICK: Settings = {
  ...FULL,
  rounds: 1,
  chatMs: 700,
  streamsPerRound: 5,
  warmupStreams: 200,
  embeddingsMs: 700,
  slowMs: 1200,
  warmupC1: 500,
  warmupRound: false,
  checkpointA: 3_000,
  checkpointB: 15_000,
  soakCapMs: 20_000,
  budgetMs: 60_000,
};

type TargetName = 'direct' | 'floor' | 'patchbay' | 'portkey' | 'patchbay-pg';

interface Target {
  name: TargetName;
  label: string;
  origin: string;
  chatPath: string;
  embeddingsPath: string;
  headers: Record<string, string>;
  chatModel: string;
  embeddingModel: string;
  /** Upstream path prefixes this target's requests arrive under. */
  prefixes: string[];
  process: Managed | null;
  /** Requests sent through this target so far. */
  served: number;
  /** Measured in the chat phases only (the PostgreSQL column). */
  chatOnly?: boolean;
  /** CPU ms a database server of its own has used so far (PostgreSQL), read beside the process's. */
  serverCpuMs?: () => number;
}

interface Segment {
  phase: string;
  target: TargetName;
  kind: JobKind;
  concurrency: number;
  round: number;
  result: JobResult;
  cpuMs: number | null;
  serverCpuMs: number | null;
}

interface Checkpoint {
  served: number;
  rssMb: number;
}

const problems: string[] = [];
const segments: Segment[] = [];

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean', default: false }, profile: { type: 'boolean', default: false }, seconds: { type: 'string' }, soak: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (process.platform !== 'linux') {
    process.stderr.write('The bench reads /proc for CPU time and memory: it runs on Linux only.\n');
    return 2;
  }
  if (values.soak !== undefined) return runSoak({ seconds: Number(values.soak) || 600 });
  if (values.profile) return runProfile({ seconds: Number(values.seconds ?? 12) });
  return runBench(values.quick ? QUICK : FULL, values.quick ? 'quick' : 'full');
}

async function runBench(settings: Settings, mode: 'quick' | 'full'): Promise<number> {
  const started = performance.now();
  const resultsDir = join(BENCH_DIR, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const children: Managed[] = [];
  let postgres: PostgresPatchbay | null = null;
  // A bench that hangs is a bug: bounded, whatever happens.
  const watchdog = setTimeout(
    () => {
      log('watchdog: the run took too long; stopping.');
      for (const child of children) child.child.kill('SIGKILL');
      process.exit(3);
    },
    mode === 'quick' ? 4 * 60_000 : 9 * 60_000,
  );
  watchdog.unref();

  try {
    log(`mode ${mode}; starting the upstream, the load generator, the floor proxy, Patchbay and Portkey ...`);
    const upstream = await startUpstream();
    children.push(upstream);
    const upstreamOrigin = `http://127.0.0.1:${upstream.port}`;
    const loadgen = startLoadGen();
    children.push(loadgen);
    const floor = await startFloorProxy(upstream.port);
    children.push(floor);
    const patchbay = await startPatchbay(upstream.port);
    children.push(patchbay);
    const portkey = await startPortkey();
    children.push(portkey);
    // The PostgreSQL column: the same Patchbay on a throwaway local cluster, measured in the chat rows.
    const missing = postgresMissing();
    if (missing) log(missing);
    else {
      postgres = await startPostgresPatchbay(upstream.port);
      children.push(postgres.process);
      log(`Patchbay on PostgreSQL ${postgres.process.url} (pid ${postgres.process.pid})`);
    }
    log(`upstream ${upstreamOrigin} (pid ${upstream.pid}), floor ${floor.url} (pid ${floor.pid}), Patchbay ${patchbay.url} (pid ${patchbay.pid}), Portkey ${portkey.url} (pid ${portkey.pid})`);

    const targets: Target[] = [
      {
        name: 'direct',
        label: 'direct',
        origin: upstreamOrigin,
        chatPath: '/direct/v1/chat/completions',
        embeddingsPath: '/direct/v1/embeddings',
        headers: { authorization: 'Bearer sk-bench-direct' },
        chatModel: 'llama-3.3-70b-versatile',
        embeddingModel: 'text-embedding-3-small',
        prefixes: ['direct'],
        process: null,
        served: 0,
      },
      {
        // The bare Node proxy: no key, no routing; what node:http + undici alone cost.
        name: 'floor',
        label: 'bare Node proxy (floor)',
        origin: floor.url,
        chatPath: '/v1/chat/completions',
        embeddingsPath: '/v1/embeddings',
        headers: { authorization: 'Bearer sk-bench-floor' },
        chatModel: 'llama-3.3-70b-versatile',
        embeddingModel: 'text-embedding-3-small',
        prefixes: ['floor'],
        process: floor,
        served: 0,
      },
      {
        name: 'patchbay',
        label: 'Patchbay',
        origin: patchbay.url,
        chatPath: '/v1/chat/completions',
        embeddingsPath: '/v1/embeddings',
        headers: { authorization: `Bearer ${patchbay.key}` },
        chatModel: 'llama-3.3-70b',
        embeddingModel: 'text-embedding-3-small',
        prefixes: ['groq', 'together', 'openai'],
        process: patchbay,
        served: 0,
      },
      {
        name: 'portkey',
        label: 'Portkey',
        origin: portkey.url,
        chatPath: '/v1/chat/completions',
        embeddingsPath: '/v1/embeddings',
        headers: {
          authorization: 'Bearer sk-bench-portkey',
          'x-portkey-provider': 'openai',
          'x-portkey-custom-host': `${upstreamOrigin}/portkey/v1`,
        },
        chatModel: 'llama-3.3-70b-versatile',
        embeddingModel: 'text-embedding-3-small',
        prefixes: ['portkey'],
        process: portkey,
        served: 0,
      },
      ...(postgres
        ? [
            {
              name: 'patchbay-pg' as const,
              label: 'Patchbay on PostgreSQL',
              origin: postgres.process.url,
              chatPath: '/v1/chat/completions',
              embeddingsPath: '/v1/embeddings',
              headers: { authorization: `Bearer ${postgres.process.key}` },
              chatModel: 'llama-3.3-70b',
              embeddingModel: 'text-embedding-3-small',
              prefixes: ['groq', 'together', 'openai'],
              process: postgres.process,
              served: 0,
              chatOnly: true,
              serverCpuMs: postgres.serverCpuMs,
            },
          ]
        : []),
    ];
    const byName = (name: TargetName) => targets.find((t) => t.name === name)!;
    /** Time the PostgreSQL column's segments took: the soaks get it back, so the other figures see the same run. */
    const postgresMs = () => segments.filter((s) => s.target === 'patchbay-pg').reduce((ms, s) => ms + s.result.elapsedMs, 0);
    // Every phase runs on these; the PostgreSQL column (chatOnly) runs the chat phases only, so it adds
    // about 20 s to a full run (its time is given back to the soaks' budget below).
    const gateways = targets.filter((t) => t.process && !t.chatOnly);
    const allPhases = targets.filter((t) => !t.chatOnly);

    const upstreamConfig = async (config: Record<string, number>) => {
      const response = await fetch(`${upstreamOrigin}/__bench/config`, { method: 'POST', body: JSON.stringify(config) });
      return (await response.json()) as UpstreamStats;
    };
    await upstreamConfig({ chatDelayMs: 0, streamChunks: settings.streamChunks, streamDelayMs: settings.streamDelayMs });

    const run = (phase: string, round: number, target: Target, kind: JobKind, concurrency: number, durationMs: number, maxRequests = 10_000_000) =>
      runSegment(loadgen, upstreamOrigin, settings, { phase, round, target, kind, concurrency, durationMs, maxRequests });

    // Warm-up: every traffic shape once, at the concurrency it is measured at (so the heap and
    // socket pools reach their working size, and the JIT has compiled what each shape runs), then
    // chat until each gateway has served checkpoint A requests: RSS is sampled there. Then, in the
    // full run, one whole round unmeasured (round 0, below), for the JIT's second tier.
    log('warm-up ...');
    for (const target of targets) {
      await run('warmup', 0, target, 'chat', 1, 10_000, settings.warmupC1);
      await run('warmup', 0, target, 'chat', 16, 10_000, 1000);
      if (target.chatOnly) continue;
      await run('warmup', 0, target, 'stream', 1, 10_000, settings.streamsPerRound);
      await run('warmup', 0, target, 'embeddings', 16, 10_000, 500);
    }
    // Streams: the measured rounds run only ~50 per target (each lasts ~100 ms), too few for V8 to
    // optimise the code only a stream runs, so a long-running gateway's first chunk was measured
    // with cold code (in-process trace of Patchbay's first-chunk path: 414 µs of its own time after
    // 40 streams, 324 µs after 3,000). So every target first serves warmupStreams quick streams
    // (no gap between chunks, 16 in flight), as a server that has streamed a while has.
    await upstreamConfig({ streamDelayMs: 0 });
    for (const target of targets) if (!target.chatOnly) await run('warmup', 0, target, 'stream', 16, 60_000, settings.warmupStreams);
    await upstreamConfig({ streamDelayMs: settings.streamDelayMs });
    await upstreamConfig({ chatDelayMs: settings.slowDelayMs });
    for (const target of allPhases) await run('warmup', 0, target, 'chat', settings.slowConcurrency, Math.min(1000, settings.slowMs), 100_000);
    await upstreamConfig({ chatDelayMs: 0 });
    for (const target of gateways) {
      while (target.served < settings.checkpointA) await run('warmup', 0, target, 'chat', 64, 30_000, settings.checkpointA - target.served);
    }
    await sleep(300);
    const checkpointA = new Map<TargetName, Checkpoint>();
    for (const target of gateways) checkpointA.set(target.name, { served: target.served, rssMb: memoryMb(target.process!.pid).rss });

    // Round 0 is the rest of the warm-up: every segment of a round, unmeasured (phase 'warmup').
    // After the warm-up above, V8 had optimised the hot functions with Maglev only; the tier-up to
    // TurboFan (thousands of calls per function, counted again after each type-feedback change)
    // came during the next segment. Measured with --trace-opt: Patchbay compiled 177-183 functions
    // with TurboFan during round 1's concurrency-1 segment (4-18 in rounds 2 and 3), and round 1
    // was the slow one for every gateway (Patchbay's c1 p99 2.6-3.8 ms against 0.8-1.2 in rounds
    // 2-3, the floor's 1.5-1.8 against 0.4-0.7). With this round first, the compilations (148) and
    // the slow segment move into it: round 1 then had 4 compilations and a p99 like the others'.
    const firstRound = settings.warmupRound ? 0 : 1;
    for (let round = firstRound; round <= settings.rounds; round++) {
      const phase = (name: string) => (round === 0 ? 'warmup' : name);
      const label = round === 0 ? 'warm-up round' : `round ${round}/${settings.rounds}`;
      log(`${label}: chat at concurrency ${settings.concurrencies.join(', ')} ...`);
      for (const concurrency of settings.concurrencies) {
        for (const target of targets) await run(phase('chat'), round, target, 'chat', concurrency, settings.chatMs);
      }
      log(`${label}: streams, embeddings, ${settings.slowDelayMs} ms upstream at concurrency ${settings.slowConcurrency} ...`);
      for (const target of allPhases) await run(phase('stream'), round, target, 'stream', 1, 60_000, settings.streamsPerRound);
      for (const target of allPhases) await run(phase('embeddings'), round, target, 'embeddings', 16, settings.embeddingsMs);
      await upstreamConfig({ chatDelayMs: settings.slowDelayMs });
      for (const target of allPhases) await run(phase('slow'), round, target, 'chat', settings.slowConcurrency, settings.slowMs);
      await upstreamConfig({ chatDelayMs: 0 });
    }

    // RSS after the measured rounds: every traffic shape has run again since checkpoint A, so growth
    // from here to checkpoint B is the plainest sign of a leak.
    await sleep(300);
    const checkpointM = new Map<TargetName, Checkpoint>();
    for (const target of gateways) checkpointM.set(target.name, { served: target.served, rssMb: memoryMb(target.process!.pid).rss });

    log(`soak: each gateway up to ${settings.checkpointB} requests (at most ${settings.soakCapMs / 1000} s each) ...`);
    const checkpointB = new Map<TargetName, Checkpoint>();
    for (const [index, target] of gateways.entries()) {
      const soakStart = performance.now();
      const budgetLeft = settings.budgetMs + postgresMs() - (soakStart - started);
      const capMs = Math.min(settings.soakCapMs, budgetLeft / (gateways.length - index));
      while (target.served < settings.checkpointB) {
        const left = capMs - (performance.now() - soakStart);
        if (left <= 0) {
          log(`soak: ${target.label} stopped at ${target.served} requests (time budget)`);
          break;
        }
        await run('soak', 0, target, 'chat', 64, Math.min(left, 10_000), settings.checkpointB - target.served);
      }
      await sleep(300);
      checkpointB.set(target.name, { served: target.served, rssMb: memoryMb(target.process!.pid).rss });
    }
    const peaks = new Map<TargetName, number>(gateways.map((t) => [t.name, memoryMb(t.process!.pid).peak]));

    const finalStats = (await (await fetch(`${upstreamOrigin}/__bench/stats`)).json()) as UpstreamStats;
    if (finalStats.bad > 0) problems.push(`the upstream refused ${finalStats.bad} malformed request(s): ${finalStats.badSamples.join('; ')}`);

    log('stopping the gateways ...');
    await patchbay.stop(40_000);
    if (postgres) {
      await postgres.process.stop(40_000);
      const rows = await postgres.usageRows();
      rmSync(postgres.process.dataDir, { recursive: true, force: true });
      if (rows.rows !== byName('patchbay-pg').served) problems.push(`Patchbay on PostgreSQL has ${rows.rows} usage rows for ${byName('patchbay-pg').served} requests`);
      if (rows.ok !== rows.rows) problems.push(`Patchbay on PostgreSQL records ${rows.rows - rows.ok} request(s) that did not succeed`);
    }
    await portkey.stop();
    await floor.stop();
    const usage = readPatchbayUsage(patchbay.dataDir);
    rmSync(patchbay.dataDir, { recursive: true, force: true });
    if (usage.rows !== byName('patchbay').served) problems.push(`Patchbay's usage table has ${usage.rows} rows for ${byName('patchbay').served} requests`);
    if (usage.ok !== usage.rows) problems.push(`Patchbay's usage table records ${usage.rows - usage.ok} request(s) that did not succeed`);

    const report = buildReport(settings, mode, targets, { a: checkpointA, m: checkpointM, b: checkpointB }, peaks, usage, finalStats, (performance.now() - started) / 1000);
    writeFileSync(join(resultsDir, 'latest.md'), report.markdown);
    writeFileSync(join(resultsDir, 'latest.json'), `${JSON.stringify(report.json, null, 2)}\n`);
    process.stdout.write(report.markdown);
    log(`wrote bench/results/latest.md and latest.json (${fmt((performance.now() - started) / 1000, 0)} s)`);
  } finally {
    clearTimeout(watchdog);
    await Promise.all(children.map((child) => child.stop(5_000)));
    await postgres?.stopCluster();
  }
  if (problems.length) {
    process.stderr.write(`\nThe run saw ${problems.length} problem(s); its figures are not to be trusted:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
    return 1;
  }
  return 0;
}

interface UpstreamStats {
  counts: Record<string, number>;
  bad: number;
  badSamples: string[];
}

async function upstreamCount(origin: string, prefixes: string[], operation: string): Promise<{ total: number; bad: number }> {
  const stats = (await (await fetch(`${origin}/__bench/stats`)).json()) as UpstreamStats;
  return { total: prefixes.reduce((n, p) => n + (stats.counts[`${p} ${operation}`] ?? 0), 0), bad: stats.bad };
}

async function runSegment(
  loadgen: LoadGen,
  upstreamOrigin: string,
  settings: Settings,
  spec: { phase: string; round: number; target: Target; kind: JobKind; concurrency: number; durationMs: number; maxRequests: number },
): Promise<Segment> {
  const { target, kind } = spec;
  const operation = kind;
  const job: Job = {
    kind,
    origin: target.origin,
    path: kind === 'embeddings' ? target.embeddingsPath : target.chatPath,
    headers: target.headers,
    body: kind === 'embeddings' ? embeddingBody(target.embeddingModel) : chatBody(target.chatModel, kind === 'stream'),
    concurrency: spec.concurrency,
    durationMs: spec.durationMs,
    maxRequests: spec.maxRequests,
    streamChunks: settings.streamChunks,
  };
  const before = await upstreamCount(upstreamOrigin, target.prefixes, operation);
  const pid = target.process?.pid;
  const cpuBefore = pid ? cpuMs(pid) : 0;
  const serverBefore = target.serverCpuMs?.() ?? 0;
  const result = await loadgen.run(job);
  const cpuAfter = pid ? cpuMs(pid) : 0;
  const serverCpu = target.serverCpuMs ? target.serverCpuMs() - serverBefore : null;
  const after = await upstreamCount(upstreamOrigin, target.prefixes, operation);
  target.served += result.count;
  const where = `${spec.phase} ${target.label} ${kind} c=${spec.concurrency}`;
  if (result.errors > 0) problems.push(`${where}: ${result.errors} of ${result.count} answers were wrong, e.g. ${result.errorSamples.join(' | ')}`);
  if (after.total - before.total !== result.count) problems.push(`${where}: the upstream answered ${after.total - before.total} requests for ${result.count} sent`);
  if (after.bad !== before.bad) problems.push(`${where}: the upstream refused ${after.bad - before.bad} malformed request(s)`);
  const segment: Segment = { phase: spec.phase, target: target.name, kind, concurrency: spec.concurrency, round: spec.round, result, cpuMs: pid ? cpuAfter - cpuBefore : null, serverCpuMs: serverCpu };
  segments.push(segment);
  return segment;
}

function readPatchbayUsage(dataDir: string): { rows: number; ok: number; byProvider: Record<string, number> } {
  const db = new Database(join(dataDir, 'patchbay.db'), { readonly: true });
  try {
    const totals = db.prepare('SELECT count(*) AS rows, coalesce(sum(status = 200), 0) AS ok FROM usage').get() as { rows: number; ok: number };
    const providers = db.prepare('SELECT coalesce(provider, \'(none)\') AS provider, count(*) AS n FROM usage GROUP BY 1 ORDER BY 2 DESC').all() as { provider: string; n: number }[];
    return { rows: totals.rows, ok: totals.ok, byProvider: Object.fromEntries(providers.map((p) => [p.provider, p.n])) };
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Figures and the report

interface Pooled {
  count: number;
  seconds: number;
  rps: number;
  latencies: Float64Array;
  cpuUsPerRequest: number | null;
  /** The PostgreSQL server's CPU per request (the PostgreSQL column only). */
  serverCpuUsPerRequest: number | null;
  ttfb: Float64Array;
  gaps: Float64Array;
  batched: number;
}

function pooled(phase: string, target: TargetName, concurrency?: number): Pooled {
  const chosen = segments.filter((s) => s.phase === phase && s.target === target && (concurrency === undefined || s.concurrency === concurrency));
  const count = chosen.reduce((n, s) => n + s.result.count, 0);
  const seconds = chosen.reduce((n, s) => n + s.result.elapsedMs, 0) / 1000;
  const cpu = chosen.every((s) => s.cpuMs !== null) ? chosen.reduce((n, s) => n + s.cpuMs!, 0) : null;
  return {
    count,
    seconds,
    rps: seconds > 0 ? count / seconds : NaN,
    latencies: concat(chosen.map((s) => s.result.latencies)),
    cpuUsPerRequest: cpu === null || count === 0 ? null : (cpu * 1000) / count,
    serverCpuUsPerRequest: count > 0 && chosen.every((s) => s.serverCpuMs !== null) ? (chosen.reduce((n, s) => n + s.serverCpuMs!, 0) * 1000) / count : null,
    ttfb: concat(chosen.map((s) => s.result.ttfb)),
    gaps: concat(chosen.map((s) => s.result.gaps)),
    batched: chosen.reduce((n, s) => n + s.result.batched, 0),
  };
}

interface Row {
  key: string;
  section: string;
  metric: string;
  unit: string;
  /** Which way is better, for reading the ratio. */
  better: 'lower' | 'higher' | '';
  values: Partial<Record<TargetName, number | null>>;
  digits: number;
}

function buildReport(
  settings: Settings,
  mode: string,
  targets: Target[],
  checkpoints: { a: Map<TargetName, Checkpoint>; m: Map<TargetName, Checkpoint>; b: Map<TargetName, Checkpoint> },
  peaks: Map<TargetName, number>,
  usage: { rows: number; ok: number; byProvider: Record<string, number> },
  upstream: UpstreamStats,
  seconds: number,
) {
  const names = targets.map((t) => t.name);
  /** The targets that are a process of their own (CPU, RSS): the floor proxy and the two gateways. */
  const gw: TargetName[] = ['floor', 'patchbay', 'portkey', 'patchbay-pg'];
  const { a: checkpointA, m: checkpointM, b: checkpointB } = checkpoints;
  const rows: Row[] = [];
  const figures: Record<string, Record<string, number | null>> = {};
  const add = (key: string, section: string, metric: string, unit: string, better: Row['better'], value: (t: TargetName) => number | null, digits = 2, only?: TargetName[]) => {
    const values: Row['values'] = {};
    for (const name of names) values[name] = only && !only.includes(name) ? null : value(name);
    rows.push({ key, section, metric, unit, better, values, digits });
    figures[key] = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v === null || v === undefined || !Number.isFinite(v) ? null : round(v, 4)]));
  };

  for (const c of settings.concurrencies) {
    const section = `Chat, concurrency ${c}`;
    const stats = Object.fromEntries(names.map((n) => [n, pooled('chat', n, c)])) as Record<TargetName, Pooled>;
    const pct = Object.fromEntries(names.map((n) => [n, percentiles(stats[n].latencies, [50, 99])])) as Record<TargetName, number[]>;
    add(`chat_c${c}_rps`, section, 'throughput', 'req/s', 'higher', (n) => stats[n].rps, 0);
    add(`chat_c${c}_p50_ms`, section, 'latency p50', 'ms', 'lower', (n) => pct[n][0], 3);
    add(`chat_c${c}_p99_ms`, section, 'latency p99', 'ms', 'lower', (n) => pct[n][1], 3);
    add(`chat_c${c}_added_p50_ms`, section, 'added latency p50 (target − direct)', 'ms', 'lower', (n) => pct[n][0] - pct.direct[0], 3, gw);
    add(`chat_c${c}_added_p99_ms`, section, 'added latency p99 (target − direct)', 'ms', 'lower', (n) => pct[n][1] - pct.direct[1], 3, gw);
    add(`chat_c${c}_cpu_us`, section, 'gateway CPU per request', 'µs', 'lower', (n) => stats[n].cpuUsPerRequest, 0, gw);
    if (names.includes('patchbay-pg')) add(`chat_c${c}_db_server_cpu_us`, section, '+ PostgreSQL server CPU per request', 'µs', '', (n) => stats[n].serverCpuUsPerRequest, 0, ['patchbay-pg']);
  }

  const stream = Object.fromEntries(names.map((n) => [n, pooled('stream', n)])) as Record<TargetName, Pooled>;
  const ttfb = Object.fromEntries(names.map((n) => [n, percentiles(stream[n].ttfb, [50, 99])])) as Record<TargetName, number[]>;
  const gaps = Object.fromEntries(names.map((n) => [n, percentiles(stream[n].gaps, [50, 99])])) as Record<TargetName, number[]>;
  const streamSection = `Streaming (${settings.streamChunks} chunks, ${settings.streamDelayMs} ms apart, concurrency 1)`;
  add('stream_ttfb_p50_ms', streamSection, 'first content chunk p50', 'ms', 'lower', (n) => ttfb[n][0], 3);
  add('stream_ttfb_p99_ms', streamSection, 'first content chunk p99', 'ms', 'lower', (n) => ttfb[n][1], 3);
  add('stream_added_ttfb_p50_ms', streamSection, 'added first-chunk delay p50', 'ms', 'lower', (n) => ttfb[n][0] - ttfb.direct[0], 3, gw);
  add('stream_gap_p50_ms', streamSection, 'inter-chunk gap p50', 'ms', '', (n) => gaps[n][0], 3);
  add('stream_gap_p99_ms', streamSection, 'inter-chunk gap p99', 'ms', '', (n) => gaps[n][1], 3);
  add('stream_gap_mean_ms', streamSection, 'inter-chunk gap mean', 'ms', '', (n) => mean(stream[n].gaps), 3);
  add('stream_batched_chunks', streamSection, 'chunks batched into the previous read', 'chunks', 'lower', (n) => stream[n].batched, 0);
  add('stream_count', streamSection, 'streams measured', 'streams', '', (n) => stream[n].count, 0);

  const embeddings = Object.fromEntries(names.map((n) => [n, pooled('embeddings', n)])) as Record<TargetName, Pooled>;
  const embeddingPct = Object.fromEntries(names.map((n) => [n, percentiles(embeddings[n].latencies, [50, 99])])) as Record<TargetName, number[]>;
  const embSection = 'Embeddings (1536 floats, concurrency 16)';
  add('embeddings_rps', embSection, 'throughput', 'req/s', 'higher', (n) => embeddings[n].rps, 0);
  add('embeddings_p50_ms', embSection, 'latency p50', 'ms', 'lower', (n) => embeddingPct[n][0], 3);
  add('embeddings_cpu_us', embSection, 'gateway CPU per request', 'µs', 'lower', (n) => embeddings[n].cpuUsPerRequest, 0, gw);

  const slow = Object.fromEntries(names.map((n) => [n, pooled('slow', n)])) as Record<TargetName, Pooled>;
  const slowPct = Object.fromEntries(names.map((n) => [n, percentiles(slow[n].latencies, [50, 99])])) as Record<TargetName, number[]>;
  const ideal = settings.slowConcurrency / (settings.slowDelayMs / 1000);
  const slowSection = `Upstream latency ${settings.slowDelayMs} ms, concurrency ${settings.slowConcurrency} (ideal ${fmt(ideal, 0)} req/s)`;
  add('slow_rps', slowSection, 'throughput', 'req/s', 'higher', (n) => slow[n].rps, 0);
  add('slow_share_of_ideal_pct', slowSection, 'share of ideal throughput', '%', 'higher', (n) => (100 * slow[n].rps) / ideal, 1);
  add('slow_share_of_direct_pct', slowSection, 'share of direct throughput', '%', 'higher', (n) => (100 * slow[n].rps) / slow.direct.rps, 1, gw);
  add('slow_p50_ms', slowSection, 'latency p50', 'ms', 'lower', (n) => slowPct[n][0], 2);
  add('slow_p99_ms', slowSection, 'latency p99', 'ms', 'lower', (n) => slowPct[n][1], 2);
  add('slow_cpu_us', slowSection, 'gateway CPU per request', 'µs', 'lower', (n) => slow[n].cpuUsPerRequest, 0, gw);

  const memSection = 'Memory (gateway process)';
  add('peak_rss_mb', memSection, 'peak RSS (VmHWM)', 'MB', 'lower', (n) => peaks.get(n) ?? null, 1, gw);
  add('rss_a_mb', memSection, `RSS after warm-up (${settings.checkpointA / 1000}k+ requests)`, 'MB', 'lower', (n) => checkpointA.get(n)?.rssMb ?? null, 1, gw);
  add('rss_a_requests', memSection, '… measured at request count', 'requests', '', (n) => checkpointA.get(n)?.served ?? null, 0, gw);
  add('rss_b_mb', memSection, `RSS after ${settings.checkpointB / 1000}k requests`, 'MB', 'lower', (n) => checkpointB.get(n)?.rssMb ?? null, 1, gw);
  add('rss_b_requests', memSection, '… measured at request count', 'requests', '', (n) => checkpointB.get(n)?.served ?? null, 0, gw);
  const growth = (from: Map<TargetName, Checkpoint>) => (n: TargetName) => {
    const a = from.get(n);
    const b = checkpointB.get(n);
    return a && b ? (100 * (b.rssMb - a.rssMb)) / a.rssMb : null;
  };
  add('rss_growth_pct', memSection, `RSS growth, warm-up → ${settings.checkpointB / 1000}k`, '%', 'lower', growth(checkpointA), 1, gw);
  add('rss_m_mb', memSection, 'RSS after the measured rounds', 'MB', 'lower', (n) => checkpointM.get(n)?.rssMb ?? null, 1, gw);
  add('rss_m_requests', memSection, '… measured at request count', 'requests', '', (n) => checkpointM.get(n)?.served ?? null, 0, gw);
  add('rss_growth_late_pct', memSection, `RSS growth, measured rounds → ${settings.checkpointB / 1000}k`, '%', 'lower', growth(checkpointM), 1, gw);

  const totalsSection = 'Totals';
  add('requests', totalsSection, 'requests sent (all checked)', 'requests', '', (n) => targets.find((t) => t.name === n)!.served, 0);
  add('wrong', totalsSection, 'wrong answers', 'answers', 'lower', (n) => segments.filter((s) => s.target === n).reduce((k, s) => k + s.result.errors, 0), 0);

  const ratios: Record<string, number | null> = {};
  // Patchbay against the floor: the ratio and the difference (what Patchbay costs above what
  // node:http + undici alone cost).
  const overFloor: Record<string, number | null> = {};
  const minusFloor: Record<string, number | null> = {};
  const known = (x: number | null | undefined): x is number => x !== null && x !== undefined;
  for (const [key, values] of Object.entries(figures)) {
    const p = values.patchbay;
    const k = values.portkey;
    const f = values.floor;
    ratios[key] = known(p) && known(k) && k !== 0 ? round(p / k, 3) : null;
    overFloor[key] = known(p) && known(f) && f !== 0 ? round(p / f, 3) : null;
    minusFloor[key] = known(p) && known(f) ? round(p - f, 4) : null;
  }
  // The "Patchbay vs floor" cell: a ratio where more is better (throughput), the difference where
  // less is better (CPU, latency, RSS), blank for counts and for rows with no better way.
  const versusFloor = (row: Row): string => {
    if (row.better === '' || !['req/s', '%', 'ms', 'µs', 'MB'].includes(row.unit)) return '';
    if (row.better === 'higher') return overFloor[row.key] === null ? '' : `${fmt(overFloor[row.key], 2)}×`;
    const d = minusFloor[row.key];
    return d === null ? '' : `${d >= 0 ? '+' : '−'}${fmt(Math.abs(d), row.digits)}`;
  };

  // Targets, all from this run.
  const v = (key: string, n: TargetName) => figures[key]?.[n] ?? null;
  // Each target is about Patchbay; `floor` is what the bare Node proxy reached for the same metric,
  // shown after a FAIL so a reader sees whether the target lies below what node:http + undici allow.
  const checks: { target: string; value: string; pass: boolean; floor: string; floorPass: boolean }[] = [];
  const check = (target: string, limit: (x: number) => boolean, measure: (n: 'patchbay' | 'floor') => { value: number | null; shown: string; ok?: boolean }) => {
    const p = measure('patchbay');
    const f = measure('floor');
    const passes = (m: { value: number | null; ok?: boolean }) => m.value !== null && limit(m.value) && m.ok !== false;
    checks.push({ target, value: p.shown, pass: passes(p), floor: f.shown, floorPass: passes(f) });
  };
  check('Added latency at concurrency 1, p50 ≤ 0.25 ms', (x) => x <= 0.25, (n) => {
    const value = v('chat_c1_added_p50_ms', n);
    return { value, shown: `${fmt(value, 3)} ms` };
  });
  check('Added latency at concurrency 1, p99 ≤ 1 ms', (x) => x <= 1, (n) => {
    const value = v('chat_c1_added_p99_ms', n);
    return { value, shown: `${fmt(value, 3)} ms` };
  });
  check("Throughput at concurrency 16 ≥ 4× Portkey's", (x) => x >= 4, (n) => {
    const rps = v('chat_c16_rps', n);
    const portkeyRps = v('chat_c16_rps', 'portkey');
    const value = rps !== null && portkeyRps ? rps / portkeyRps : null;
    return { value, shown: `${fmt(value, 2)}× (${fmt(rps, 0)} vs ${fmt(portkeyRps, 0)} req/s)` };
  });
  check('CPU per request (chat, concurrency 16) ≤ 200 µs', (x) => x <= 200, (n) => {
    const value = v('chat_c16_cpu_us', n);
    return { value, shown: `${fmt(value, 0)} µs` };
  });
  check('Stream first byte ≤ 0.5 ms later than direct (p50)', (x) => x <= 0.5, (n) => {
    const value = v('stream_added_ttfb_p50_ms', n);
    return { value, shown: `${fmt(value, 3)} ms` };
  });
  check('Inter-chunk gaps within 1 ms of the upstream’s (p50 and p99), no batching', (x) => x <= 1, (n) => {
    const gapDelta = Math.max(Math.abs((v('stream_gap_p50_ms', n) ?? NaN) - (v('stream_gap_p50_ms', 'direct') ?? NaN)), Math.abs((v('stream_gap_p99_ms', n) ?? NaN) - (v('stream_gap_p99_ms', 'direct') ?? NaN)));
    // A chunk that arrives in the same read as the one before was batched on the way; the direct
    // path shows how often the load generator alone does that (rarely), so allow that many plus 1 %.
    const batched = v('stream_batched_chunks', n) ?? 0;
    const batchedAllowed = (v('stream_batched_chunks', 'direct') ?? 0) + Math.ceil(0.01 * (figures.stream_count?.[n] ?? 0) * (settings.streamChunks - 1));
    return {
      value: Number.isNaN(gapDelta) ? null : gapDelta,
      ok: batched <= batchedAllowed,
      shown: `max |Δ| ${fmt(gapDelta, 3)} ms, ${batched} chunk(s) batched (direct ${v('stream_batched_chunks', 'direct') ?? 0})`,
    };
  });
  check(`${settings.slowDelayMs} ms upstream at concurrency ${settings.slowConcurrency}: ≥ 80 % of direct`, (x) => x >= 80, (n) => {
    const value = v('slow_share_of_direct_pct', n);
    return { value, shown: `${fmt(value, 1)} %` };
  });
  check('Peak RSS ≤ 120 MB', (x) => x <= 120, (n) => {
    const value = v('peak_rss_mb', n);
    return { value, shown: `${fmt(value, 1)} MB` };
  });
  check(`RSS growth ${settings.checkpointA / 1000}k → ${settings.checkpointB / 1000}k requests ≤ 10 %`, (x) => x <= 10, (n) => {
    const grow = v('rss_growth_pct', n);
    const reachedB = (checkpointB.get(n)?.served ?? 0) >= settings.checkpointB;
    return { value: reachedB ? grow : null, shown: `${fmt(grow, 1)} %${reachedB ? '' : ' (checkpoint not reached)'}` };
  });

  const versions = portkeyVersions();
  const lines: string[] = [];
  lines.push(`# Patchbay benchmark (${mode})`, '');
  lines.push(
    `${new Date().toISOString()} · Node ${process.version} · ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'} · Portkey gateway ${versions.gateway} (@hono/node-server ${versions.nodeServer}, hono ${versions.hono}) · ${settings.rounds} interleaved round(s)${settings.warmupRound ? ' after an unmeasured warm-up round' : ''} · ${fmt(seconds, 0)} s`,
    '',
  );
  const header = names.map((n) => (n === 'direct' || n === 'floor' ? n : targets.find((t) => t.name === n)!.label));
  lines.push(`| section | metric | unit | ${header.join(' | ')} | Patchbay / Portkey | Patchbay vs floor |`, `| --- | --- | --- | ${names.map(() => '---:').join(' | ')} | ---: | ---: |`);
  let lastSection = '';
  for (const row of rows) {
    const ratio = ratios[row.key];
    const cells = names.map((n) => fmt(row.values[n] ?? null, row.digits));
    lines.push(`| ${row.section === lastSection ? '' : row.section} | ${row.metric} | ${row.unit} | ${cells.join(' | ')} | ${ratio === null || row.better === '' ? '' : `${fmt(ratio, 2)}×`} | ${versusFloor(row)} |`);
    lastSection = row.section;
  }
  lines.push(
    '',
    '`floor` is a bare Node pass-through proxy (bench/floor-proxy.mjs: node:http and one undici Agent, no auth, routing or logging), a reference, not a competitor: the least a Node gateway costs.',
    '"Patchbay vs floor" is Patchbay − floor in the row\'s unit where less is better (CPU, latency, RSS), Patchbay / floor where more is better (throughput).',
  );
  if (names.includes('patchbay-pg')) {
    const d = (key: string) => {
      const pgValue = figures[key]?.['patchbay-pg'];
      const sqlite = figures[key]?.patchbay;
      return known(pgValue) && known(sqlite) ? pgValue - sqlite : null;
    };
    lines.push(
      '"Patchbay on PostgreSQL" is the same Patchbay and key (rate limits: one shared-window admission per request there) on a local throwaway PostgreSQL cluster (chat rows only); its database work runs in the PostgreSQL server, shown on its own row, where SQLite\'s runs in Patchbay\'s process.',
      `PostgreSQL − SQLite: ${settings.concurrencies.map((c) => `c${c} added p50 ${fmt(d(`chat_c${c}_added_p50_ms`), 3)} ms, CPU ${fmt(d(`chat_c${c}_cpu_us`), 0)} µs (+ ${fmt(figures[`chat_c${c}_db_server_cpu_us`]?.['patchbay-pg'], 0)} µs in the server)`).join('; ')}.`,
    );
  } else lines.push('No PostgreSQL column: PostgreSQL is not installed.');
  lines.push('', `Patchbay usage rows: ${usage.rows} (${usage.ok} with status 200); routed to ${Object.entries(usage.byProvider).map(([p, n]) => `${p} ${n}`).join(', ')}.`);
  lines.push(`Upstream answered: ${Object.entries(upstream.counts).map(([k, n]) => `${k} ${n}`).join(', ')}.`, '');
  lines.push('## Targets', '');
  for (const c of checks) lines.push(`- ${c.pass ? 'PASS' : 'FAIL'} ${c.target}: ${c.value}${c.pass ? '' : ` (bare Node proxy: ${c.floor})`}`);
  if (problems.length) lines.push('', '## Problems (figures not to be trusted)', '', ...problems.map((p) => `- ${p}`));
  lines.push('');
  const markdown = lines.join('\n');

  const json = {
    mode,
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    seconds: round(seconds, 1),
    portkey: versions,
    settings,
    figures,
    ratios_patchbay_over_portkey: ratios,
    ratios_patchbay_over_floor: overFloor,
    patchbay_minus_floor: minusFloor,
    targets: checks,
    segments: segments.map((s) => ({
      phase: s.phase,
      round: s.round,
      target: s.target,
      kind: s.kind,
      concurrency: s.concurrency,
      requests: s.result.count,
      rps: round(s.result.count / (s.result.elapsedMs / 1000), 1),
      p50_ms: round(percentiles(s.result.latencies, [50])[0], 3),
      p99_ms: round(percentiles(s.result.latencies, [99])[0], 3),
      cpu_us_per_request: s.cpuMs === null ? null : round((s.cpuMs * 1000) / Math.max(1, s.result.count), 0),
      errors: s.result.errors,
    })),
    patchbay_usage: usage,
    upstream_counts: upstream.counts,
    problems,
  };
  return { markdown, json };
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(2);
  },
);
