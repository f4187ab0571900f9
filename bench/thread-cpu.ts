// CPU per request by thread (utime+stime of each /proc/<pid>/task/<tid>), for Patchbay or the floor:
// the main thread, the usage writer thread (WorkerThread), V8's helper threads (V8Worker: parallel
// scavenges, concurrent marking and compilation, which follow the allocation rate) and libuv's.
// The bench's CPU per request is their sum; this says which thread it is spent on.
//
//   node bench/thread-cpu.ts [REQUESTS] [floor]     (chat at concurrency 16 after 5,000 of warm-up)
//
// Another build: BENCH_PATCHBAY_BIN=<checkout>/bin/patchbay.js PATCHBAY_DIST=<checkout>/dist.
import { readdirSync, readFileSync } from 'node:fs';
import { startFloorProxy, startLoadGen, startPatchbay, startUpstream, ticksPerSecond } from './procs.ts';
import { chatBody } from './wire.ts';
const threads = (pid: number) => Object.fromEntries(readdirSync(`/proc/${pid}/task`).map((tid) => { const st = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'); const comm = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')')); const f = st.slice(st.lastIndexOf(')') + 2).split(' '); return [`${tid} ${comm}`, ((Number(f[11]) + Number(f[12])) * 1000) / ticksPerSecond()]; }));
const upstream = await startUpstream();
const loadgen = startLoadGen();
const t: any = process.argv[3] === 'floor' ? await startFloorProxy(upstream.port) : await startPatchbay(upstream.port);
const job = (ms: number, max: number) => ({ kind: 'chat' as const, origin: t.url, path: '/v1/chat/completions', headers: { authorization: `Bearer ${t.key}` }, body: chatBody(process.argv[3] === 'floor' ? 'llama-3.3-70b-versatile' : 'llama-3.3-70b'), concurrency: 16, durationMs: ms, maxRequests: max });
await loadgen.run(job(30000, 5000));
const before = threads(t.pid);
const r = await loadgen.run(job(60000, Number(process.argv[2] ?? 20000)));
await new Promise((res) => setTimeout(res, 300));
const after = threads(t.pid);
const rows = Object.keys(after).map((k) => [k, (after[k] - (before[k] ?? 0)) * 1000 / r.count] as const).filter(([, us]) => us > 0.5).sort((a, b) => b[1] - a[1]);
console.log(`${r.count} requests, ${(r.count / r.elapsedMs * 1000).toFixed(0)} req/s; CPU µs per request by thread:`);
for (const [k, us] of rows) console.log(`  ${us.toFixed(1).padStart(7)}  ${k}`);
console.log(`  ${rows.reduce((a, [, us]) => a + us, 0).toFixed(1).padStart(7)}  total`);
await t.stop(10000); await loadgen.stop(); await upstream.stop();
