// What holds the floor's and Patchbay's memory after the bench's warm-up, and (with --soak S) what
// grew in Patchbay after S seconds more of chat at 16 in flight. Not part of `npm run bench`.
//
//   node bench/heap-probe.ts [--soak 300] [--snapshot] [--only patchbay]
//   BENCH_PATCHBAY_BIN=<checkout>/bin/patchbay.js PATCHBAY_DIST=<checkout>/dist node bench/heap-probe.ts   # another build
//   PROBE_ARGS="--max-semi-space-size=8" node bench/heap-probe.ts                                        # other V8 flags (both)
//   node bench/heap-probe.ts --only patchbay --warm soak --soak 240 --every 10 --gc-log                  # what grows in a soak, over time
//   node bench/heap-probe.ts --only patchbay --warm soak --soak 20 --idle 5,15,30,60,120                   # what an idle Patchbay gives back after a burst
//
// Both processes get the warm-up of `npm run bench` (chat at 1 and 16, streams, embeddings, 256 in
// flight against a 50 ms upstream, chat at 64 up to 10,000 requests), then a second's rest. Then,
// per process: RSS and its peak (/proc/PID/status), anonymous and file-backed (smaps_rollup), a
// diagnostic report (--report-on-signal: each isolate's heap by space, committed; the usage writer
// thread's isolate is the report's worker), the rest of the anonymous memory (malloc: SQLite,
// Node's and V8's C++ side, thread stacks), and, with --snapshot, a heap snapshot of the main
// isolate summarised by kind of object (bench/results/heap-probe/*.heapsnapshot, open in DevTools).
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_DIR, memoryMb, sleep, startFloorProxy, startLoadGen, startPatchbay, startUpstream, type Managed } from './procs.ts';
import type { JobKind } from './loadgen.ts';
import { chatBody, embeddingBody } from './wire.ts';

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const soakSeconds = Number(option('--soak') ?? 0);
const snapshot = args.includes('--snapshot');
const only = option('--only');
// --warm soak: the soak's warm-up (10,000 chat requests at 16 in flight) instead of the bench's.
const warmSoak = option('--warm') === 'soak';
// --every S: during --soak, a line every S s: RSS split by mapping kind and each isolate's committed spaces.
const everySeconds = Number(option('--every') ?? 0);
// --gc-log: Patchbay runs with --trace-gc-nvp; its lines go to bench/results/heap-probe/patchbay/gc.log
// and a summary per slice and isolate (scavenges, mark-compacts, new space capacity, promoted) is printed.
const gcLog = args.includes('--gc-log');
// --idle S1,S2,...: after the last load, RSS (by mapping kind) S1, S2, ... seconds after it stopped, and
// Patchbay's idle memory release as GET /api/status reports it (core/runtime/idle-memory.ts).
const idleSeconds = (option('--idle') ?? '').split(',').filter(Boolean).map(Number);
const extra = (process.env.PROBE_ARGS ?? '').split(' ').filter(Boolean);
const outDir = join(BENCH_DIR, 'results', 'heap-probe');
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const MB = 1024 * 1024;
const diag = (name: string) => (mkdirSync(join(outDir, name), { recursive: true }), [`--report-on-signal`, `--report-signal=SIGUSR2`, `--report-directory=${join(outDir, name)}`, `--heapsnapshot-signal=SIGTTIN`, `--diagnostic-dir=${join(outDir, name)}`]);

interface Target {
  name: string;
  proc: Managed;
  dataDir?: string;
  url: string;
  headers: Record<string, string>;
  served: number;
}

const upstream = await startUpstream();
const loadgen = startLoadGen();
const targets: Target[] = [];
let spawnedAt = 0;
const origin = `http://127.0.0.1:${upstream.port}`;
const upstreamConfig = (settings: object) => fetch(`${origin}/__bench/config`, { method: 'POST', body: JSON.stringify(settings) });

function kb(text: string, name: string): number {
  return Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0) / 1024;
}

async function newestFile(dir: string, ext: string, after: number): Promise<string> {
  for (let i = 0; i < 600; i++) {
    if (existsSync(dir)) {
      const files = readdirSync(dir).filter((f) => f.endsWith(ext)).map((f) => join(dir, f)).filter((f) => statSync(f).mtimeMs >= after);
      // A snapshot is written in pieces: wait until its size stops changing.
      if (files.length) {
        const file = files.sort().at(-1)!;
        const size = statSync(file).size;
        await sleep(500);
        if (statSync(file).size === size && size > 0) return file;
      }
    }
    await sleep(100);
  }
  throw new Error(`no ${ext} in ${dir}`);
}

type Heap = { totalCommittedMemory?: number; totalMemory: number; usedMemory: number; mallocedMemory?: number; externalMemory?: number; heapSpaces?: Record<string, { memorySize: number; committedMemory: number; used: number }> };

function spaces(heap: Heap): string {
  const s = heap.heapSpaces ?? {};
  const pick = (n: string) => ((s[n]?.committedMemory ?? s[n]?.memorySize ?? 0) / MB).toFixed(1);
  const used = (n: string) => ((s[n]?.used ?? 0) / MB).toFixed(1);
  return `new ${pick('new_space')} (used ${used('new_space')}), old ${pick('old_space')} (used ${used('old_space')}), code ${pick('code_space')}, large ${pick('large_object_space')}, trusted ${pick('trusted_space')}, read-only ${pick('read_only_space')}`;
}

/** Self size of the snapshot's nodes by type, and the largest "object" kinds by constructor. */
function summariseSnapshot(file: string): string {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[]; strings: string[] };
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const byType = new Map<string, number>();
  const byName = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + iType]];
    const size = snap.nodes[i + iSize];
    total += size;
    byType.set(type, (byType.get(type) ?? 0) + size);
    const name = type === 'object' || type === 'native' || type === 'hidden' || type === 'code' || type === 'array' ? `${type}:${snap.strings[snap.nodes[i + iName]].slice(0, 60)}` : type;
    byName.set(name, (byName.get(name) ?? 0) + size);
  }
  const top = (map: Map<string, number>, n: number) =>
    [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `    ${(v / MB).toFixed(2).padStart(6)} MB  ${k}`).join('\n');
  return `  heap snapshot: ${(total / MB).toFixed(1)} MB live\n  by type:\n${top(byType, 12)}\n  largest kinds:\n${top(byName, 25)}`;
}

/** The anonymous mappings holding most RSS: glibc arenas are 64 MB reservations, thread stacks 8 MB, [heap] the main arena. */
function largestMappings(pid: number): string {
  const maps: { name: string; size: number; rss: number }[] = [];
  let current: { name: string; size: number; rss: number } | null = null;
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      current = { name: head[4] || (head[3] === '0' ? 'anon' : '?'), size: (parseInt(head[2], 16) - parseInt(head[1], 16)) / MB, rss: 0 };
      maps.push(current);
    } else if (current && line.startsWith('Anonymous:')) current.rss = Number(/(\d+)/.exec(line)![1]) / 1024;
  }
  return maps
    .filter((m) => m.rss > 0.5)
    .sort((a, b) => b.rss - a.rss)
    .slice(0, 14)
    .map((m) => `${m.rss.toFixed(1)}/${m.size.toFixed(1)}${m.name === 'anon' ? '' : ` ${m.name.split('/').pop()}`}`)
    .join(', ');
}

/**
 * RSS by kind of mapping: glibc's main arena ([heap]), its other arenas (anonymous read-write
 * mappings starting on a 64 MB boundary: glibc aligns each arena's heap to its 64 MB reservation),
 * the rest of the anonymous memory (V8's heap pages, thread stacks, other mmaps) and file-backed.
 */
function mappingKinds(pid: number): { heap: number; arenas: number; otherAnon: number; file: number } {
  const out = { heap: 0, arenas: 0, otherAnon: 0, file: 0 };
  let kind: keyof typeof out = 'otherAnon';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-[0-9a-f]+ (\S+) \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head) {
      const name = head[3];
      if (name === '[heap]') kind = 'heap';
      else if (name.startsWith('/')) kind = 'file';
      else if (!name && head[2].startsWith('rw') && BigInt(`0x${head[1]}`) % (64n * 1024n * 1024n) === 0n) kind = 'arenas';
      else kind = 'otherAnon';
    } else if (line.startsWith('Rss:')) out[kind] += Number(/(\d+)/.exec(line)![1]) / 1024;
  }
  return out;
}

async function heapReport(target: Target): Promise<{ javascriptHeap: Heap; workers: { javascriptHeap: Heap }[] }> {
  const dir = join(outDir, target.name);
  for (const f of readdirSync(dir)) if (f.endsWith('.json')) rmSync(join(dir, f));
  const started = Date.now();
  process.kill(target.proc.pid, 'SIGUSR2');
  const file = await newestFile(join(outDir, target.name), '.json', started - 1000);
  const report = JSON.parse(readFileSync(file, 'utf8'));
  rmSync(file);
  return report;
}

/** One line per sample: RSS by mapping kind, each isolate's committed new / old / code / large spaces (MB). */
async function sampleLine(target: Target, seconds: number): Promise<string> {
  const m = mappingKinds(target.proc.pid);
  const report = await heapReport(target);
  const c = (h: Heap, n: string) => ((h.heapSpaces?.[n]?.committedMemory ?? 0) / MB).toFixed(1);
  const u = (h: Heap, n: string) => ((h.heapSpaces?.[n]?.used ?? 0) / MB).toFixed(1);
  const iso = (h: Heap) => `new ${c(h, 'new_space')} old ${c(h, 'old_space')} (used ${u(h, 'old_space')}) code ${c(h, 'code_space')} large ${c(h, 'large_object_space')}`;
  const rss = m.heap + m.arenas + m.otherAnon + m.file;
  return `${String(Math.round(seconds)).padStart(4)} s  RSS ${rss.toFixed(1)}: [heap] ${m.heap.toFixed(1)} arenas ${m.arenas.toFixed(1)} other anon ${m.otherAnon.toFixed(1)} file ${m.file.toFixed(1)} | main: ${iso(report.javascriptHeap)} | writer: ${report.workers.map((w) => iso(w.javascriptHeap)).join(' / ')}`;
}

/** --trace-gc-nvp lines summarised per isolate and per slice of the run. */
function summariseGc(file: string, sliceMs: number): string {
  const byIsolate = new Map<string, Map<number, { s: number; mc: number; cap: number; promoted: number; size: number; pool: number }>>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^\[\d+:(0x[0-9a-f]+)(?::\d+)?\]\s+(\d+) ms: (.*)$/.exec(line);
    if (!m) continue;
    const f = Object.fromEntries(m[3].split(' ').map((kv) => kv.split('=')));
    if (!f.gc) continue;
    const slice = Math.floor(Number(m[2]) / sliceMs);
    const isolate = byIsolate.get(m[1]) ?? new Map();
    byIsolate.set(m[1], isolate);
    const e = isolate.get(slice) ?? { s: 0, mc: 0, cap: 0, promoted: 0, size: 0, pool: 0 };
    isolate.set(slice, e);
    if (f.gc === 's') e.s++;
    else e.mc++;
    e.cap = Number(f.new_space_capacity ?? e.cap);
    e.promoted += Number(f.promoted ?? 0);
    e.size = Number(f.end_memory_size ?? e.size);
    e.pool = Number(f.pool_total_chunks ?? e.pool);
  }
  const lines: string[] = [];
  for (const [isolate, slices] of byIsolate) {
    lines.push(`  isolate ${isolate} (process time slice: scavenges, mark-compacts, new space capacity MB, promoted MB, heap size after MB, freed pages V8 keeps pooled (not in its committed figure, still resident) MB):`);
    for (const [slice, e] of [...slices].sort((a, b) => a[0] - b[0]))
      lines.push(`    ${String((slice * sliceMs) / 1000).padStart(5)} s: ${e.s} s, ${e.mc} mc, cap ${(e.cap / MB).toFixed(1)}, promoted ${(e.promoted / MB).toFixed(1)}, size ${(e.size / MB).toFixed(1)}, pool ${((e.pool * 256) / 1024).toFixed(1)}`);
  }
  return lines.join('\n');
}

async function measure(target: Target, label: string): Promise<void> {
  const pid = target.proc.pid;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const threads = readdirSync(`/proc/${pid}/task`).map((t) => readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim());
  const started = Date.now();
  process.kill(pid, 'SIGUSR2');
  const report = JSON.parse(readFileSync(await newestFile(join(outDir, target.name), '.json', started - 1000), 'utf8')) as { javascriptHeap: Heap; workers: { javascriptHeap: Heap }[] };
  const main = report.javascriptHeap;
  const workers = report.workers.map((w) => w.javascriptHeap);
  const committed = (h: Heap) => (h.totalCommittedMemory ?? h.totalMemory) / MB;
  const anon = kb(rollup, 'Anonymous');
  const v8 = committed(main) + workers.reduce((sum, w) => sum + committed(w), 0);
  const lines = [
    `${target.name} ${label}: RSS ${kb(status, 'VmRSS').toFixed(1)} MB (peak ${kb(status, 'VmHWM').toFixed(1)}), anonymous ${anon.toFixed(1)}, file-backed ${(kb(rollup, 'Rss') - anon).toFixed(1)}; ${threads.length} threads (${[...new Set(threads)].join(', ')})`,
    `  main isolate: committed ${committed(main).toFixed(1)} MB, used ${(main.usedMemory / MB).toFixed(1)}, malloced ${((main.mallocedMemory ?? 0) / MB).toFixed(1)}, external ${((main.externalMemory ?? 0) / MB).toFixed(1)}: ${spaces(main)}`,
    ...workers.map((w, i) => `  worker ${i} isolate: committed ${committed(w).toFixed(1)} MB, used ${(w.usedMemory / MB).toFixed(1)}, malloced ${((w.mallocedMemory ?? 0) / MB).toFixed(1)}, external ${((w.externalMemory ?? 0) / MB).toFixed(1)}: ${spaces(w)}`),
    `  anonymous outside the V8 heaps (malloc: SQLite, Node's and V8's C++ side, thread stacks): ${(anon - v8).toFixed(1)} MB`,
  ];
  lines.push(`  largest anonymous mappings (RSS / size MB): ${largestMappings(pid)}`);
  if (snapshot) {
    const at = Date.now();
    process.kill(pid, 'SIGTTIN');
    lines.push(summariseSnapshot(await newestFile(join(outDir, target.name), '.heapsnapshot', at - 1000)));
  }
  console.log(lines.join('\n'));
}

async function run(target: Target, kind: JobKind, concurrency: number, maxRequests: number, durationMs = 60_000): Promise<void> {
  const result = await loadgen.run({
    kind,
    origin: target.url,
    path: kind === 'embeddings' ? '/v1/embeddings' : '/v1/chat/completions',
    headers: target.headers,
    body: kind === 'embeddings' ? embeddingBody('text-embedding-3-small') : chatBody('llama-3.3-70b', kind === 'stream'),
    concurrency,
    durationMs,
    maxRequests,
    ...(kind === 'stream' ? { streamChunks: 20 } : {}),
  });
  if (result.errors) throw new Error(`${target.name}: ${result.errors} wrong answers: ${result.errorSamples.join(' | ')}`);
  target.served += result.count;
}

/** RSS of each target at the --idle offsets after the load stopped (no diagnostic report: it would allocate). */
async function idleSamples(): Promise<void> {
  const stopped = Date.now();
  for (const seconds of idleSeconds) {
    await sleep(Math.max(0, stopped + seconds * 1000 - Date.now()));
    for (const t of targets) {
      const m = mappingKinds(t.proc.pid);
      const rss = m.heap + m.arenas + m.otherAnon + m.file;
      console.log(`${t.name} idle ${String(seconds).padStart(4)} s: RSS ${rss.toFixed(1)} MB ([heap] ${m.heap.toFixed(1)} arenas ${m.arenas.toFixed(1)} other anon ${m.otherAnon.toFixed(1)} file ${m.file.toFixed(1)})`);
    }
  }
  for (const t of targets) {
    if (!t.dataDir) continue;
    const token = readFileSync(join(t.dataDir, 'admin-token'), 'utf8').trim();
    const status = (await (await fetch(`${t.url}/api/status`, { headers: { authorization: `Bearer ${token}` } })).json()) as { idle_memory?: unknown };
    console.log(`${t.name} idle_memory (GET /api/status): ${JSON.stringify(status.idle_memory ?? 'absent (a build without the idle release)')}`);
  }
}

try {
  if (only !== 'patchbay') {
    const floor = await startFloorProxy(upstream.port, [...extra, ...diag('floor')]);
    targets.push({ name: 'floor', proc: floor, url: floor.url, headers: { authorization: 'Bearer sk-bench-floor' }, served: 0 });
  }
  if (only !== 'floor') {
    spawnedAt = Date.now();
    const patchbay = await startPatchbay(upstream.port, [...extra, ...diag('patchbay'), ...(gcLog ? ['--trace-gc-nvp'] : [])]);
    if (gcLog) patchbay.child.stdout!.pipe(createWriteStream(join(outDir, 'patchbay', 'gc.log')));
    targets.push({ name: 'patchbay', proc: patchbay, dataDir: patchbay.dataDir, url: patchbay.url, headers: { authorization: `Bearer ${patchbay.key}` }, served: 0 });
  }
  if (warmSoak) for (const t of targets) await run(t, 'chat', 16, 10_000);
  else for (const t of targets) {
    await run(t, 'chat', 1, 2000);
    await run(t, 'chat', 16, 1000);
    await run(t, 'stream', 1, 12);
    await run(t, 'embeddings', 16, 500);
  }
  if (!warmSoak) {
    await upstreamConfig({ chatDelayMs: 50 });
    for (const t of targets) await run(t, 'chat', 256, 100_000, 2500);
    await upstreamConfig({ chatDelayMs: 0 });
    for (const t of targets) while (t.served < 10_000) await run(t, 'chat', 64, 10_000 - t.served);
  }
  await sleep(1000);
  for (const t of targets) await measure(t, `after warm-up (${t.served} requests)`);
  if (soakSeconds > 0) {
    const t = targets.find((x) => x.name === 'patchbay') ?? targets[0];
    const from = Date.now();
    const until = from + soakSeconds * 1000;
    console.log(`soak starts ~${((from - spawnedAt) / 1000).toFixed(0)} s after Patchbay was spawned (the GC log's clock)`);
    if (everySeconds) console.log(await sampleLine(t, 0));
    while (Date.now() < until) {
      await run(t, 'chat', 16, 1e9, Math.min((everySeconds || 10) * 1000, until - Date.now()));
      if (everySeconds) console.log(await sampleLine(t, (Date.now() - from) / 1000));
      else process.stderr.write(`[heap-probe] ${t.name}: ${t.served} requests, RSS ${memoryMb(t.proc.pid).rss.toFixed(1)} MB\n`);
    }
    await sleep(1000);
    await measure(t, `after ${soakSeconds} s more of chat at 16 in flight (${t.served} requests)`);
  }
  if (idleSeconds.length) await idleSamples();
  if (args.includes('--hold')) {
    process.stderr.write(`[heap-probe] holding ${targets.map((t) => `${t.name} pid ${t.proc.pid}`).join(', ')} for ${option('--hold')} s\n`);
    await sleep(Number(option('--hold')) * 1000);
  }
  if (gcLog) console.log(`GC by slice (--trace-gc-nvp, ${join(outDir, 'patchbay', 'gc.log')}):\n${summariseGc(join(outDir, 'patchbay', 'gc.log'), 20_000)}`);
} finally {
  await Promise.all([...targets.map((t) => t.proc.stop(30_000)), loadgen.stop(), upstream.stop()]);
}
