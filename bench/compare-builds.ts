// Two builds of Patchbay side by side: the same upstream and load generator, segments interleaved
// (A B, B A, ...) over several rounds, medians reported. How the closing notes measure a change:
//
//   git worktree add /tmp/before HEAD~1 && ln -s "$PWD/node_modules" /tmp/before/node_modules
//   node bench/compare-builds.ts /tmp/before/bin/patchbay.js bin/patchbay.js [--rounds 5] [--concurrency 1,16]
//
// The same build twice with different Node flags (how the V8 flags were chosen), e.g.:
//
//   node bench/compare-builds.ts bin/patchbay.js bin/patchbay.js --args-b=--single-threaded-gc
//
// Chat (non-streaming, the bench's two-provider alias and rate-limited key): CPU µs per request,
// req/s, p50 and p99 per concurrency, and p50 added latency (p50 minus the same round's p50 direct to
// the upstream, measured beside each segment pair); then streams (20 chunks 5 ms apart, concurrency 1,
// as in the bench): median time to the first content chunk, and the same direct. RSS at the end.
// Differences under ~3 % are noise on a 2-core machine.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cpuMs, memoryMb, startLoadGen, startPatchbay, startUpstream, type PatchbayProcess } from './procs.ts';
import { chatBody } from './wire.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: {
    rounds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '1,16' },
    'args-a': { type: 'string', default: '' },
    'args-b': { type: 'string', default: '' },
    'env-a': { type: 'string', default: '' },
    'env-b': { type: 'string', default: '' },
  },
});
if (positionals.length !== 2) {
  process.stderr.write('usage: node bench/compare-builds.ts <bin A> <bin B> [--rounds N] [--concurrency 1,16]\n');
  process.exit(2);
}
const rounds = Number(values.rounds);
const concurrencies = values.concurrency.split(',').map(Number);

const upstream = await startUpstream();
const loadgen = startLoadGen();
const builds: { name: string; process: PatchbayProcess }[] = [];
for (const [index, bin] of positionals.entries()) {
  process.env.BENCH_PATCHBAY_BIN = resolve(bin);
  const args = (index === 0 ? values['args-a'] : values['args-b']).split(' ').filter(Boolean);
  const env = Object.fromEntries((index === 0 ? values['env-a'] : values['env-b']).split(' ').filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
  builds.push({ name: index === 0 ? 'A' : 'B', process: await startPatchbay(upstream.port, args, env) });
}

const STREAM_CHUNKS = 20;
const STREAMS_PER_ROUND = 12;
await fetch(`http://127.0.0.1:${upstream.port}/__bench/config`, { method: 'POST', body: JSON.stringify({ chatDelayMs: 0, streamChunks: STREAM_CHUNKS, streamDelayMs: 5 }) });

const figures = new Map<string, { cpu: number[]; rps: number[]; p50: number[]; p99: number[]; ttfb: number[] }>();
const directBuild = { name: 'direct', process: null };
async function segment(build: (typeof builds)[number] | typeof directBuild, concurrency: number, durationMs: number, stream = false): Promise<void> {
  const pid = build.process?.pid;
  const cpuBefore = pid ? cpuMs(pid) : 0;
  const result = await loadgen.run({
    kind: stream ? 'stream' : 'chat',
    origin: build.process ? build.process.url : `http://127.0.0.1:${upstream.port}`,
    path: build.process ? '/v1/chat/completions' : '/direct/v1/chat/completions',
    headers: { authorization: build.process ? `Bearer ${build.process.key}` : 'Bearer sk-bench-direct' },
    body: chatBody(build.process ? 'llama-3.3-70b' : 'llama-3.3-70b-versatile', stream),
    concurrency,
    durationMs,
    maxRequests: stream ? STREAMS_PER_ROUND : 1e9,
    streamChunks: STREAM_CHUNKS,
  });
  if (result.errors) throw new Error(`build ${build.name}: ${result.errors} wrong answers, e.g. ${result.errorSamples.join(' | ')}`);
  const sorted = Array.from(result.latencies).sort((a, b) => a - b);
  const key = `${build.name} ${stream ? 'stream' : concurrency}`;
  const entry = figures.get(key) ?? { cpu: [], rps: [], p50: [], p99: [], ttfb: [] };
  if (pid) entry.cpu.push(((cpuMs(pid) - cpuBefore) * 1000) / result.count);
  entry.rps.push((result.count / result.elapsedMs) * 1000);
  entry.p50.push(sorted[Math.floor(sorted.length * 0.5)]);
  entry.p99.push(sorted[Math.floor(sorted.length * 0.99)]);
  if (stream) entry.ttfb.push(...Array.from(result.ttfb));
  figures.set(key, entry);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  for (const build of builds) await segment(build, 16, 4000); // warm-up, not counted
  for (const build of builds) await segment(build, 1, 60_000, true); // stream warm-up, not counted
  figures.clear();
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? [...builds].reverse() : builds;
    for (const concurrency of concurrencies) {
      if (concurrency === 1) await segment(directBuild, 1, 1500);
      for (const build of order) await segment(build, concurrency, 1500);
    }
    await segment(directBuild, 1, 60_000, true);
    for (const build of order) await segment(build, 1, 60_000, true);
  }
  for (const concurrency of concurrencies) {
    const a = figures.get(`A ${concurrency}`)!;
    const b = figures.get(`B ${concurrency}`)!;
    console.log(
      `c${concurrency}: CPU µs/req A ${median(a.cpu).toFixed(0)} B ${median(b.cpu).toFixed(0)} (B/A ${(median(b.cpu) / median(a.cpu)).toFixed(3)})` +
        ` | req/s A ${median(a.rps).toFixed(0)} B ${median(b.rps).toFixed(0)} | p50 ms A ${median(a.p50).toFixed(3)} B ${median(b.p50).toFixed(3)} | p99 ms A ${median(a.p99).toFixed(3)} B ${median(b.p99).toFixed(3)}`,
    );
  }
  const direct1 = figures.get('direct 1');
  if (direct1) {
    const added = (name: string) => median(figures.get(`${name} 1`)!.p50) - median(direct1.p50);
    console.log(`c1 p50 added latency ms (p50 - direct p50 ${median(direct1.p50).toFixed(3)}): A ${added('A').toFixed(3)} B ${added('B').toFixed(3)}`);
  }
  const ttfb = (name: string) => median(figures.get(`${name} stream`)!.ttfb);
  console.log(`stream first chunk ms (median of ${figures.get('A stream')!.ttfb.length} per build): direct ${ttfb('direct').toFixed(3)} A ${ttfb('A').toFixed(3)} B ${ttfb('B').toFixed(3)} (added A ${(ttfb('A') - ttfb('direct')).toFixed(3)} B ${(ttfb('B') - ttfb('direct')).toFixed(3)})`);
  console.log(builds.map((b) => `RSS ${b.name} ${memoryMb(b.process.pid).rss.toFixed(0)} MB (peak ${memoryMb(b.process.pid).peak.toFixed(0)})`).join(', '));
} finally {
  for (const build of builds) await build.process.stop();
  await loadgen.stop();
  await upstream.stop();
}
