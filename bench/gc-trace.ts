// Young- and old-generation collections per chat request, for one or more builds of Patchbay, from
// `--trace-gc`: how often a scavenge comes, its pause (median), and how many Mark-Compacts ran, over
// a window after warm-up. Bytes per request (alloc-profile.ts) are not enough to judge an
// allocation change: a change that allocated 2 KB less per request made V8 pretenure its objects,
// and scavenge pauses went 1.4 -> 4 ms with 12x the Mark-Compacts (issue 24, lane floor-cpu2).
//
//   node bench/gc-trace.ts [--concurrency 16] [--requests 30000] [dist ...]
//
// Each dist is a core/ compiled with scripts/build-core.js (PATCHBAY_DIST); without one, this
// checkout's TypeScript sources run. GC_TRACE_ARGS adds Node flags (e.g. --no-allocation-site-pretenuring).
import { parseArgs } from 'node:util';
import { startLoadGen, startPatchbay, startUpstream } from './procs.ts';
import { chatBody } from './wire.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { concurrency: { type: 'string', default: '16' }, requests: { type: 'string', default: '30000' } } });
const upstream = await startUpstream();
const loadgen = startLoadGen();
try {
  for (const dist of positionals.length ? positionals : ['']) {
    const extra = (process.env.GC_TRACE_ARGS ?? '').split(' ').filter(Boolean);
    const patchbay = await startPatchbay(upstream.port, ['--trace-gc', ...extra], dist ? { PATCHBAY_DIST: dist } : {});
    const lines: string[] = [];
    let recording = false;
    patchbay.child.stdout!.on('data', (data: Buffer) => {
      if (recording) lines.push(...data.toString('utf8').split('\n'));
    });
    const job = (max: number) => ({ kind: 'chat' as const, origin: patchbay.url, path: '/v1/chat/completions', headers: { authorization: `Bearer ${patchbay.key}` }, body: chatBody('llama-3.3-70b'), concurrency: Number(values.concurrency), durationMs: 120_000, maxRequests: max });
    await loadgen.run(job(10_000));
    await loadgen.run(job(5_000));
    recording = true;
    const result = await loadgen.run(job(Number(values.requests)));
    await new Promise((resolve) => setTimeout(resolve, 300));
    recording = false;
    const scavenges = lines.filter((line) => line.includes('Scavenge'));
    const pauses = scavenges.map((line) => Number(/MB, ([\d.]+) \/ [\d.]+ ms/.exec(line)?.[1])).filter((ms) => !Number.isNaN(ms)).sort((a, b) => a - b);
    const majors = lines.filter((line) => line.includes('Mark-Compact')).length;
    console.log(
      `${dist || 'sources'}: ${result.count} requests at ${values.concurrency} in flight; a scavenge every ${(result.count / Math.max(1, scavenges.length)).toFixed(0)} requests, ` +
        `pause median ${pauses[pauses.length >> 1]?.toFixed(2) ?? '-'} ms (max ${pauses[pauses.length - 1]?.toFixed(2) ?? '-'}); ${majors} Mark-Compact(s)`,
    );
    await patchbay.stop(5000);
  }
} finally {
  await loadgen.stop();
  await upstream.stop();
}
