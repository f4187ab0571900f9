// A stream's first chunk through the floor and Patchbay, with and without the upstream pausing
// between chunks: how far the bench's "stream first byte" figure is Patchbay's own work and how far
// it is what a pause does to every process on the machine. Not part of `npm run bench`.
//
//   node bench/stream-probe.ts [--chunks 1,2,20] [--delay 5] [--streams 40] [--rounds 3] [--warm-streams N]
//
// For each chunk count: streams at concurrency 1 against direct, the floor and Patchbay, interleaved
// in rounds, every stream checked by the load generator. A stream of 1 chunk ends as soon as it
// starts, so the next request arrives at processes that were busy a moment ago; with 2 or more, each
// stream ends after the upstream paused `delay` ms, and the next one meets processes that sat idle.
// Printed: the first content chunk's p50 for each target and the added delay (target − direct).
// Before the streams, each target serves chat at concurrency 1 and 16 (as in the bench's warm-up), so
// the code a stream shares with chat is as optimised as it is in the bench. With --warm-streams N,
// each target then also serves N streams without the pause (a few ms each), so the code only a
// stream runs is optimised too, as in a server that has streamed for a while: the difference between
// 0 and 2000 is what V8's tiers (not Patchbay's work) add to the first chunk in a short run.
import { parseArgs } from 'node:util';
import { startFloorProxy, startLoadGen, startPatchbay, startUpstream } from './procs.ts';
import { percentiles } from './stats.ts';
import { chatBody } from './wire.ts';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '1,2,20' },
    delay: { type: 'string', default: '5' },
    streams: { type: 'string', default: '40' },
    rounds: { type: 'string', default: '3' },
    'warm-streams': { type: 'string', default: '0' },
  },
});
const chunkCounts = values.chunks.split(',').map(Number);
const delayMs = Number(values.delay);
const streams = Number(values.streams);
const rounds = Number(values.rounds);
const warmStreams = Number(values['warm-streams']);

const upstream = await startUpstream();
const loadgen = startLoadGen();
const floor = await startFloorProxy(upstream.port);
const patchbay = await startPatchbay(upstream.port);
const upstreamOrigin = `http://127.0.0.1:${upstream.port}`;
const targets = [
  { name: 'direct', origin: upstreamOrigin, path: '/direct/v1/chat/completions', headers: { authorization: 'Bearer sk-bench-direct' }, model: 'llama-3.3-70b-versatile' },
  { name: 'floor', origin: floor.url, path: '/v1/chat/completions', headers: { authorization: 'Bearer sk-bench-floor' }, model: 'llama-3.3-70b-versatile' },
  { name: 'Patchbay', origin: patchbay.url, path: '/v1/chat/completions', headers: { authorization: `Bearer ${patchbay.key}` }, model: 'llama-3.3-70b' },
];

try {
  for (const target of targets) {
    for (const concurrency of [1, 16]) {
      await loadgen.run({ kind: 'chat', origin: target.origin, path: target.path, headers: target.headers, body: chatBody(target.model), concurrency, durationMs: 30_000, maxRequests: 3000 });
    }
  }
  if (warmStreams > 0) {
    await fetch(`${upstreamOrigin}/__bench/config`, { method: 'POST', body: JSON.stringify({ chatDelayMs: 0, streamChunks: 20, streamDelayMs: 0 }) });
    for (const target of targets) {
      await loadgen.run({ kind: 'stream', origin: target.origin, path: target.path, headers: target.headers, body: chatBody(target.model, true), concurrency: 1, durationMs: 120_000, maxRequests: warmStreams, streamChunks: 20 });
    }
  }
  for (const chunks of chunkCounts) {
    await fetch(`${upstreamOrigin}/__bench/config`, { method: 'POST', body: JSON.stringify({ chatDelayMs: 0, streamChunks: chunks, streamDelayMs: delayMs }) });
    const firsts = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    // Round 0 warms the JIT for this stream shape and is not counted.
    for (let round = 0; round <= rounds; round++) {
      for (const target of targets) {
        const result = await loadgen.run({ kind: 'stream', origin: target.origin, path: target.path, headers: target.headers, body: chatBody(target.model, true), concurrency: 1, durationMs: 120_000, maxRequests: streams, streamChunks: chunks });
        if (result.errors > 0) throw new Error(`${target.name}: ${result.errors} wrong answers, e.g. ${result.errorSamples[0]}`);
        if (round === 0) continue;
        firsts.get(target.name)!.push(...result.ttfb);
      }
    }
    const p50 = (name: string) => percentiles(Float64Array.from(firsts.get(name)!), [50])[0];
    const direct = p50('direct');
    const cells = targets.map((t) => (t.name === 'direct' ? `direct ${direct.toFixed(3)} ms` : `${t.name} ${p50(t.name).toFixed(3)} ms (+${(p50(t.name) - direct).toFixed(3)})`));
    process.stdout.write(`${String(chunks).padStart(3)} chunk(s), ${delayMs} ms apart, first chunk p50 of ${rounds * streams}: ${cells.join(' | ')}\n`);
    const p99 = (name: string) => percentiles(Float64Array.from(firsts.get(name)!), [99])[0];
    process.stdout.write(`    p99: ${targets.map((t) => `${t.name} ${p99(t.name).toFixed(3)} ms`).join(' | ')}\n`);
  }
} finally {
  await Promise.all([upstream.stop(), loadgen.stop(), floor.stop(), patchbay.stop()]);
}
