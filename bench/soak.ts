// `npm run bench -- --soak SECONDS`: Patchbay alone under chat at concurrency 16 for that long
// (600 for the 10-minute soak), its resident memory sampled every 10 s. Not part of the default
// run. Reports RSS after the warm-up, at the end, the growth between them, the median of the first
// and of the last minute (RSS moves with every collection; the medians say whether it creeps), the
// peak (VmHWM) and CPU per request; every answer is checked and the usage table must end with one
// row per request. Writes bench/results/soak.md and soak.json.
//
// The warm-up is a minute of the same load (WARM_UP_MS), not a count of requests: V8's old
// generation starts each process at its post-collection low and reaches its working size within
// ~30 s of load (bench/heap-probe.ts --warm soak --every 10 --gc-log), and a count shrinks as
// Patchbay gets faster (10,000 requests took 12 s when this soak was written, 1.7 s now, which
// measured V8's ramp as growth). The growth from 10,000 requests in (the ramp included) is reported
// beside the target's figure, so what happens in that minute stays in sight.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Job } from './loadgen.ts';
import { BENCH_DIR, cpuMs, memoryMb, sleep, startLoadGen, startPatchbay, startUpstream, type Managed } from './procs.ts';
import { chatBody } from './wire.ts';

const SLICE_MS = 10_000;
const CONCURRENCY = 16;
/** The soak's own limit on growth after the warm-up (issue 24). */
const TARGET_GROWTH_MIB = 5;
/** The warm-up: at least this long under the soak's load (and at least WARM_UP_REQUESTS). */
const WARM_UP_MS = 60_000;
const WARM_UP_REQUESTS = 10_000;

export async function runSoak(options: { seconds: number }): Promise<number> {
  const children: Managed[] = [];
  try {
    const upstream = await startUpstream();
    children.push(upstream);
    const loadgen = startLoadGen();
    children.push(loadgen);
    const patchbay = await startPatchbay(upstream.port);
    children.push(patchbay);
    const job = (durationMs: number, maxRequests: number): Job => ({
      kind: 'chat',
      origin: patchbay.url,
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${patchbay.key}` },
      body: chatBody('llama-3.3-70b'),
      concurrency: CONCURRENCY,
      durationMs,
      maxRequests,
    });
    process.stderr.write(`[bench] soak: Patchbay (pid ${patchbay.pid}), warm-up (${WARM_UP_MS / 1000} s and at least ${WARM_UP_REQUESTS} requests), then ${options.seconds} s of chat at concurrency ${CONCURRENCY} ...\n`);
    let requests = 0;
    let errors = 0;
    const warmStart = performance.now();
    const warm = await loadgen.run(job(WARM_UP_MS, WARM_UP_REQUESTS));
    requests += warm.count;
    errors += warm.errors;
    await sleep(1000);
    const afterFirstRequests = memoryMb(patchbay.pid).rss;
    const firstRequestsS = (performance.now() - warmStart) / 1000;
    const warmUp: { s: number; rss: number }[] = [];
    while (performance.now() - warmStart < WARM_UP_MS) {
      const result = await loadgen.run(job(Math.min(SLICE_MS, WARM_UP_MS - (performance.now() - warmStart)), 1e9));
      requests += result.count;
      errors += result.errors;
      warmUp.push({ s: (performance.now() - warmStart) / 1000, rss: memoryMb(patchbay.pid).rss });
    }
    await sleep(1000);
    const afterWarmUp = memoryMb(patchbay.pid).rss;
    const cpuBefore = cpuMs(patchbay.pid);
    const soakStart = performance.now();
    let soaked = 0;
    const samples: { s: number; rss: number }[] = [];
    while (performance.now() - soakStart < options.seconds * 1000) {
      const result = await loadgen.run(job(Math.min(SLICE_MS, options.seconds * 1000 - (performance.now() - soakStart)), 1e9));
      requests += result.count;
      soaked += result.count;
      errors += result.errors;
      if (result.errors) process.stderr.write(`[bench] soak: ${result.errors} wrong answers, e.g. ${result.errorSamples.join(' | ')}\n`);
      const s = (performance.now() - soakStart) / 1000;
      samples.push({ s, rss: memoryMb(patchbay.pid).rss });
      if (samples.length % 6 === 0) process.stderr.write(`[bench] soak: ${s.toFixed(0)} s, ${soaked} requests, RSS ${samples.at(-1)!.rss.toFixed(1)} MiB\n`);
    }
    const cpuUs = ((cpuMs(patchbay.pid) - cpuBefore) * 1000) / soaked;
    const elapsed = (performance.now() - soakStart) / 1000;
    await sleep(1000);
    const { rss: atEnd, peak } = memoryMb(patchbay.pid);
    const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : NaN);
    const firstMinute = median(samples.filter((x) => x.s <= 60).map((x) => x.rss));
    const lastMinute = median(samples.filter((x) => x.s > elapsed - 60).map((x) => x.rss));
    // Every request's usage row must be there once Patchbay stopped (it commits what is queued on the way out).
    await patchbay.stop(30_000);
    const db = new Database(join(patchbay.dataDir, 'patchbay.db'), { readonly: true });
    const rows = (db.prepare('SELECT count(*) AS n FROM usage').get() as { n: number }).n;
    db.close();
    rmSync(patchbay.dataDir, { recursive: true, force: true });
    const growth = atEnd - afterWarmUp;
    const report = {
      seconds: Math.round(elapsed),
      concurrency: CONCURRENCY,
      requests: soaked,
      reqPerSec: soaked / elapsed,
      cpuUsPerRequest: cpuUs,
      warmUpSeconds: WARM_UP_MS / 1000,
      rssAfterFirstRequestsMiB: afterFirstRequests,
      firstRequestsSeconds: firstRequestsS,
      warmUp,
      rssAfterWarmUpMiB: afterWarmUp,
      rssAtEndMiB: atEnd,
      growthMiB: growth,
      firstMinuteMedianMiB: firstMinute,
      lastMinuteMedianMiB: lastMinute,
      peakMiB: peak,
      errors,
      usageRows: rows,
      expectedRows: requests,
      samples,
    };
    const lines = [
      `# Soak: Patchbay alone, chat at concurrency ${CONCURRENCY} for ${report.seconds} s`,
      '',
      '| | value |',
      '| --- | ---: |',
      `| requests (after the warm-up) | ${soaked} (${report.reqPerSec.toFixed(0)} req/s) |`,
      `| CPU per request | ${cpuUs.toFixed(0)} µs |`,
      `| RSS after the first ${WARM_UP_REQUESTS} requests (${firstRequestsS.toFixed(1)} s in, a second's rest) | ${afterFirstRequests.toFixed(1)} MiB |`,
      `| RSS during the warm-up, every ~10 s | ${warmUp.map((x) => x.rss.toFixed(1)).join(', ')} MiB |`,
      `| RSS after the ${WARM_UP_MS / 1000} s warm-up (a second's rest) | ${afterWarmUp.toFixed(1)} MiB |`,
      `| RSS at the end | ${atEnd.toFixed(1)} MiB |`,
      `| growth | ${growth.toFixed(1)} MiB (target < ${TARGET_GROWTH_MIB}: ${growth < TARGET_GROWTH_MIB ? 'PASS' : 'FAIL'}) |`,
      `| growth from the first ${WARM_UP_REQUESTS} requests (V8 reaching its working heap included) | ${(atEnd - afterFirstRequests).toFixed(1)} MiB |`,
      `| median RSS, first minute → last minute | ${firstMinute.toFixed(1)} → ${lastMinute.toFixed(1)} MiB |`,
      `| peak RSS (VmHWM) | ${peak.toFixed(1)} MiB |`,
      `| wrong answers | ${errors} |`,
      `| usage rows / requests | ${rows} / ${requests} |`,
      '',
    ];
    mkdirSync(join(BENCH_DIR, 'results'), { recursive: true });
    writeFileSync(join(BENCH_DIR, 'results', 'soak.md'), lines.join('\n'));
    writeFileSync(join(BENCH_DIR, 'results', 'soak.json'), `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(lines.join('\n'));
    return errors > 0 || rows !== requests ? 1 : 0;
  } finally {
    await Promise.all(children.map((child) => child.stop(5_000)));
  }
}
