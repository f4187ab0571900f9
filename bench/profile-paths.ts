// The floor and Patchbay profiled on the same load, one after the other, with their costs per
// request side by side: where Patchbay's extra CPU goes, layer by layer and function by function.
//
//   node bench/profile-paths.ts [--shape chat1|chat16|stream] [--seconds 10] [--heap]
//
// chat1 / chat16: non-streaming chat at concurrency 1 / 16; stream: 20-chunk streams 5 ms apart at
// concurrency 1 (the bench's first-chunk segment). Each process runs under `node --cpu-prof`
// (100 µs sampling), warm-up first (3,000 requests, then the measured shape for 3 s), and only the
// measured window is analysed. Self time is divided by the requests served in the window, so the
// figures are µs per request and comparable across the two even on a loaded machine (a profile's
// shares move less with load than a stopwatch). `--heap` also writes a heap snapshot of each after
// the warm-up (idle), into bench/results/profile-paths/.
// Writes bench/results/profile-paths-<shape>.md and prints it.
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeProfile, type ProfileSummary } from './analyze-profile.ts';
import type { Job } from './loadgen.ts';
import { BENCH_DIR, cpuMs, memoryMb, sleep, startFloorProxy, startLoadGen, startPatchbay, startUpstream, type Managed } from './procs.ts';
import { chatBody } from './wire.ts';

const { values } = parseArgs({ options: { shape: { type: 'string', default: 'chat16' }, seconds: { type: 'string', default: '10' }, heap: { type: 'boolean', default: false } } });
const shape = values.shape!;
if (!['chat1', 'chat16', 'stream'].includes(shape)) throw new Error(`--shape must be chat1, chat16 or stream (not ${shape})`);
const seconds = Number(values.seconds);
const stream = shape === 'stream';
const concurrency = shape === 'chat16' ? 16 : 1;
const dir = join(BENCH_DIR, 'results', 'profile-paths');
mkdirSync(dir, { recursive: true });

interface Measured {
  name: string;
  count: number;
  cpuUs: number;
  summary: ProfileSummary;
  ttfbMs: number | null;
  rssMb: number;
}

const upstream = await startUpstream();
const loadgen = startLoadGen();
await fetch(`http://127.0.0.1:${upstream.port}/__bench/config`, { method: 'POST', body: JSON.stringify({ chatDelayMs: 0, streamChunks: 20, streamDelayMs: 5 }) });
const results: Measured[] = [];
try {
  for (const name of ['floor', 'patchbay'] as const) {
    const profDir = join(dir, `${shape}-${name}`);
    rmSync(profDir, { recursive: true, force: true });
    mkdirSync(profDir, { recursive: true });
    const args = ['--cpu-prof', `--cpu-prof-dir=${profDir}`, '--cpu-prof-interval=100', ...(values.heap ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${profDir}`] : [])];
    const target: Managed & { url: string; key?: string } = name === 'floor' ? await startFloorProxy(upstream.port, args) : await startPatchbay(upstream.port, args);
    const job = (kind: 'chat' | 'stream', c: number, durationMs: number, maxRequests: number): Job => ({
      kind,
      origin: target.url,
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${target.key ?? 'sk-bench-floor'}` },
      body: chatBody(name === 'floor' ? 'llama-3.3-70b-versatile' : 'llama-3.3-70b', kind === 'stream'),
      concurrency: c,
      durationMs,
      maxRequests,
      streamChunks: 20,
    });
    await loadgen.run(job('chat', 16, 30_000, 3000));
    await loadgen.run(job(stream ? 'stream' : 'chat', concurrency, 3000, 1e9));
    if (values.heap) {
      await sleep(1000);
      process.kill(target.pid, 'SIGUSR2');
      await sleep(4000);
    }
    const cpuBefore = cpuMs(target.pid);
    // Profile time is the monotonic clock (µs) from the profile's startTime: the window is taken on the same clock.
    const from = Number(process.hrtime.bigint() / 1000n);
    const result = await loadgen.run(job(stream ? 'stream' : 'chat', concurrency, seconds * 1000, 1e9));
    const to = Number(process.hrtime.bigint() / 1000n);
    const cpuUs = ((cpuMs(target.pid) - cpuBefore) * 1000) / result.count;
    const rssMb = memoryMb(target.pid).peak;
    if (result.errors) throw new Error(`${name}: ${result.errors} wrong answers, e.g. ${result.errorSamples.join(' | ')}`);
    // The floor exits (and writes its profile) when its IPC channel closes; Patchbay on SIGTERM.
    if (name === 'floor') {
      const exited = new Promise((resolve) => target.child.once('exit', resolve));
      target.child.disconnect();
      await Promise.race([exited, sleep(20_000)]);
    }
    await target.stop(40_000);
    const file = readdirSync(profDir).filter((f) => /^CPU\.\d+\.\d+\.\d+\.0\./.test(f)) // the main thread's (a worker's has its thread id instead of 0)
      .map((f) => join(profDir, f)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
    const ttfb = stream ? [...result.ttfb].sort((a, b) => a - b)[Math.floor(result.ttfb.length / 2)] : null;
    const startTime = (JSON.parse(readFileSync(file, 'utf8')) as { startTime: number }).startTime;
    results.push({ name, count: result.count, cpuUs, summary: analyzeProfile(file, 40, { fromMs: (from - startTime) / 1000, toMs: (to - startTime) / 1000 }), ttfbMs: ttfb, rssMb });
  }
} finally {
  await Promise.all([upstream.stop(5000), loadgen.stop(5000)]);
}

const [floor, patchbay] = results;
const per = (m: Measured, ms: number) => (ms * 1000) / m.count;
const f1 = (x: number) => x.toFixed(1);
const lines = [
  `# Floor and Patchbay, ${shape === 'stream' ? 'streams (20 chunks 5 ms apart) at concurrency 1' : `chat at concurrency ${concurrency}`}: cost per request`,
  '',
  `Profiled with --cpu-prof (100 µs), ${seconds} s each after warm-up, one after the other; µs per request = profile time / requests in the window.`,
  '',
  '| | floor | Patchbay | Patchbay − floor |',
  '| --- | ---: | ---: | ---: |',
  `| requests | ${floor.count} | ${patchbay.count} | |`,
  `| CPU per request (/proc, all threads) | ${f1(floor.cpuUs)} | ${f1(patchbay.cpuUs)} | ${f1(patchbay.cpuUs - floor.cpuUs)} |`,
  `| main thread busy per request (profile) | ${f1(per(floor, floor.summary.busyMs))} | ${f1(per(patchbay, patchbay.summary.busyMs))} | ${f1(per(patchbay, patchbay.summary.busyMs) - per(floor, floor.summary.busyMs))} |`,
  `| GC per request | ${f1(per(floor, floor.summary.gcMs))} | ${f1(per(patchbay, patchbay.summary.gcMs))} | ${f1(per(patchbay, patchbay.summary.gcMs) - per(floor, floor.summary.gcMs))} |`,
  ...(stream ? [`| first chunk p50, ms | ${floor.ttfbMs!.toFixed(3)} | ${patchbay.ttfbMs!.toFixed(3)} | ${(patchbay.ttfbMs! - floor.ttfbMs!).toFixed(3)} |`] : []),
  `| peak RSS MB (profiler on) | ${f1(floor.rssMb)} | ${f1(patchbay.rssMb)} | ${f1(patchbay.rssMb - floor.rssMb)} |`,
  '',
  '## Self time by layer, µs per request (native code charged to its JavaScript caller)',
  '',
  '| layer | floor | Patchbay | Patchbay − floor |',
  '| --- | ---: | ---: | ---: |',
];
const layers = new Set([...patchbay.summary.selfByLayer, ...floor.summary.selfByLayer].map((e) => e.name));
const layerUs = (m: Measured, name: string) => per(m, m.summary.selfByLayer.find((e) => e.name === name)?.ms ?? 0);
for (const name of [...layers].sort((a, b) => layerUs(patchbay, b) - layerUs(floor, b) - (layerUs(patchbay, a) - layerUs(floor, a)))) {
  lines.push(`| ${name} | ${f1(layerUs(floor, name))} | ${f1(layerUs(patchbay, name))} | ${f1(layerUs(patchbay, name) - layerUs(floor, name))} |`);
}
for (const m of results) {
  lines.push('', `## ${m.name}: self time by function, µs per request`, '', '| function | where | µs |', '| --- | --- | ---: |');
  for (const e of m.summary.selfByFunction.slice(0, 30)) lines.push(`| ${e.name} | ${e.where} | ${f1(per(m, e.ms))} |`);
}
lines.push('', '## Patchbay: inclusive time of core functions, µs per request', '', '| function | where | µs |', '| --- | --- | ---: |');
for (const e of patchbay.summary.inclusiveCore.slice(0, 30)) lines.push(`| ${e.name} | ${e.where} | ${f1(per(patchbay, e.ms))} |`);
const markdown = `${lines.join('\n')}\n`;
writeFileSync(join(BENCH_DIR, 'results', `profile-paths-${shape}.md`), markdown);
process.stdout.write(markdown);
