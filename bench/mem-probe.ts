// Patchbay's CPU and RSS under a fixed sequence of loads, for comparing V8 flags or builds one at a
// time (bin/node-flags.js quotes its figures). Not part of `npm run bench`.
//
//   node bench/mem-probe.ts                                   # Patchbay with NODE_FLAGS
//   PROBE_ARGS="--max-semi-space-size=32" node bench/mem-probe.ts   # a flag replaces its default
//
// Loads: chat at 16 in flight (twice: the first warms up), embeddings at 16, chat at 256 in flight
// against a 50 ms upstream, chat at 64 (twice). After each: req/s, CPU µs per request, RSS split
// into anonymous and file-backed memory (/proc/<pid>/smaps_rollup), and peak RSS so far.
import { readFileSync } from 'node:fs';
import { cpuMs, memoryMb, startLoadGen, startPatchbay, startUpstream } from './procs.ts';
import { chatBody, embeddingBody } from './wire.ts';

const extraArgs = (process.env.PROBE_ARGS ?? '').split(' ').filter(Boolean);
const upstream = await startUpstream();
const loadgen = startLoadGen();
const patchbay = await startPatchbay(upstream.port, extraArgs);
const origin = `http://127.0.0.1:${upstream.port}`;
const headers = { authorization: `Bearer ${patchbay.key}` };

function smaps(pid: number): string {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) / 1024;
  return `rss ${kb('Rss').toFixed(1)} anon ${kb('Anonymous').toFixed(1)} file ${(kb('Rss') - kb('Anonymous')).toFixed(1)}`;
}

async function load(kind: 'chat' | 'embeddings', concurrency: number, requests: number, upstreamDelayMs = 0): Promise<void> {
  await fetch(`${origin}/__bench/config`, { method: 'POST', body: JSON.stringify({ chatDelayMs: upstreamDelayMs }) });
  const cpuBefore = cpuMs(patchbay.pid);
  const result = await loadgen.run({
    kind,
    origin: patchbay.url,
    path: kind === 'chat' ? '/v1/chat/completions' : '/v1/embeddings',
    headers,
    body: kind === 'chat' ? chatBody('llama-3.3-70b') : embeddingBody('text-embedding-3-small'),
    concurrency,
    durationMs: 60_000,
    maxRequests: requests,
  });
  const cpuUs = ((cpuMs(patchbay.pid) - cpuBefore) * 1000) / result.count;
  const rate = (result.count / result.elapsedMs) * 1000;
  console.log(`${kind} c${concurrency}${upstreamDelayMs ? ` (${upstreamDelayMs} ms upstream)` : ''}: ${result.count} req, ${result.errors} wrong, ${rate.toFixed(0)} req/s, ${cpuUs.toFixed(0)} µs CPU/req | ${smaps(patchbay.pid)} | peak ${memoryMb(patchbay.pid).peak.toFixed(1)} MB`);
}

try {
  console.log(`Patchbay ${extraArgs.join(' ') || '(NODE_FLAGS)'}: at start ${smaps(patchbay.pid)}`);
  await load('chat', 16, 10_000);
  await load('chat', 16, 10_000);
  await load('embeddings', 16, 5_000);
  await load('chat', 256, 10_000, 50);
  await load('chat', 64, 30_000);
  await load('chat', 64, 30_000);
} finally {
  await patchbay.stop();
  await loadgen.stop();
  await upstream.stop();
}
