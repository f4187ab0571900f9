// Where a stream's first chunk spends its time inside the floor and Patchbay: in-process timestamps
// at each step from the request's arrival to the first write (bench/first-chunk-marks.mjs,
// preloaded with --import), p50 per step over the measured streams. The steps are marked by
// `globalThis.__pbMark?.(step)` calls that are not in the code: apply bench/first-chunk-trace.patch
// to the checkouts first (`git apply bench/first-chunk-trace.patch`; `git checkout core bench/floor-proxy.mjs bench/upstream.ts` after).
// The patch marks the bench upstream too: it sends, in a stream's head, when it received the request,
// its end and when it wrote the head (process.hrtime, the same clock in every process), so the wait
// for the upstream's head splits into the request's way there, the upstream's own time and the
// head's way back; 'ticked' (a nextTick) and 'idle' (a setImmediate) after the dispatch say when the
// proxy's own work for the request was over. Every step after the dispatch is also printed as
// `dispatched => step` (its time since the dispatch returned).
//
//   node bench/first-chunk-trace.ts [--streams 150] [--rounds 3] [--warm-streams 2000] [--bin-b <other checkout>/bin/patchbay.js]
//
// Warm-up as bench/stream-probe.ts (chat at 1 and 16, then quick streams), then streams of 20
// chunks 5 ms apart at concurrency 1 (the bench's first-chunk segment), rounds interleaved across
// the targets. With --bin-b a second Patchbay build is traced beside the first (A/B).
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_DIR, sleep, startFloorProxy, startLoadGen, startPatchbay, startUpstream, type Managed } from './procs.ts';
import { percentiles } from './stats.ts';
import { chatBody } from './wire.ts';

const { values } = parseArgs({
  options: {
    streams: { type: 'string', default: '150' },
    rounds: { type: 'string', default: '3' },
    'warm-streams': { type: 'string', default: '2000' },
    'bin-b': { type: 'string' },
  },
});
const streams = Number(values.streams);
const rounds = Number(values.rounds);
const hook = ['--import', join(BENCH_DIR, 'first-chunk-marks.mjs')];

const upstream = await startUpstream();
const loadgen = startLoadGen();
const upstreamOrigin = `http://127.0.0.1:${upstream.port}`;
interface Target { name: string; proc: Managed & { url: string; key?: string }; file: string; model: string }
const targets: Target[] = [];
const fileFor = (name: string) => join(tmpdir(), `first-chunk-marks-${process.pid}-${name}.json`);
process.env.FIRST_CHUNK_MARKS_FILE = fileFor('floor');
targets.push({ name: 'floor', proc: await startFloorProxy(upstream.port, hook), file: fileFor('floor'), model: 'llama-3.3-70b-versatile' });
const bins = [['A', process.env.BENCH_PATCHBAY_BIN], ...(values['bin-b'] ? [['B', resolve(values['bin-b'])]] : [])] as const;
for (const [name, bin] of bins) {
  if (bin) process.env.BENCH_PATCHBAY_BIN = bin;
  else delete process.env.BENCH_PATCHBAY_BIN;
  const file = fileFor(name);
  targets.push({ name: `Patchbay ${name}`, proc: await startPatchbay(upstream.port, hook, { FIRST_CHUNK_MARKS_FILE: file }), file, model: 'llama-3.3-70b' });
}
const job = (t: Target, kind: 'chat' | 'stream', concurrency: number, maxRequests: number) => ({
  kind,
  origin: t.proc.url,
  path: '/v1/chat/completions',
  headers: { authorization: `Bearer ${t.proc.key ?? 'sk-bench-floor'}` },
  body: chatBody(t.model, kind === 'stream'),
  concurrency,
  durationMs: 120_000,
  maxRequests,
  streamChunks: 20,
});
const dump = async (t: Target) => {
  process.kill(t.proc.pid, 'SIGUSR2');
  await sleep(300);
  return JSON.parse(readFileSync(t.file, 'utf8')) as Record<string, number[]>;
};

try {
  for (const t of targets) for (const c of [1, 16]) await loadgen.run(job(t, 'chat', c, 3000));
  await fetch(`${upstreamOrigin}/__bench/config`, { method: 'POST', body: JSON.stringify({ chatDelayMs: 0, streamChunks: 20, streamDelayMs: 0 }) });
  for (const t of targets) await loadgen.run(job(t, 'stream', 16, Number(values['warm-streams'])));
  await fetch(`${upstreamOrigin}/__bench/config`, { method: 'POST', body: JSON.stringify({ chatDelayMs: 0, streamChunks: 20, streamDelayMs: 5 }) });
  const all = new Map<string, Map<string, number[]>>(targets.map((t) => [t.name, new Map()]));
  const ttfb = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  for (const t of targets) await dump(t);
  for (let round = 0; round < rounds; round++) {
    for (const t of round % 2 ? [...targets].reverse() : targets) {
      const result = await loadgen.run(job(t, 'stream', 1, streams));
      if (result.errors) throw new Error(`${t.name}: ${result.errors} wrong answers, e.g. ${result.errorSamples[0]}`);
      ttfb.get(t.name)!.push(...result.ttfb);
      for (const [step, list] of Object.entries(await dump(t))) {
        const into = all.get(t.name)!;
        into.set(step, [...(into.get(step) ?? []), ...list]);
      }
    }
  }
  const p50 = (list: number[] | undefined) => (list && list.length ? percentiles(Float64Array.from(list), [50])[0] : NaN);
  for (const t of targets) {
    const steps = all.get(t.name)!;
    process.stdout.write(`\n${t.name}: first chunk at the client p50 ${p50(ttfb.get(t.name)).toFixed(3)} ms; in-process p50 µs (${steps.get('TOTAL')?.length ?? 0} streams)\n`);
    for (const [step, list] of steps) process.stdout.write(`  ${step.padEnd(34)} ${(p50(list) * 1000).toFixed(1).padStart(7)}   (n ${list.length})\n`);
  }
} finally {
  await Promise.all([upstream.stop(), loadgen.stop(), ...targets.map((t) => t.proc.stop())]);
  for (const t of targets) rmSync(t.file, { force: true });
}
