// `npm run bench -- --profile`: Patchbay under load with `node --cpu-prof`, then the profile's
// self time per function and file. The load is non-streaming chat at concurrency 16 through the
// same setup as the benchmark (two-provider alias, rate-limited key, usage rows).
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeProfile, profileMarkdown } from './analyze-profile.ts';
import type { Job } from './loadgen.ts';
import { BENCH_DIR, cpuMs, startLoadGen, startPatchbay, startUpstream, type Managed } from './procs.ts';
import { fmt } from './stats.ts';
import { chatBody } from './wire.ts';

export async function runProfile(options: { seconds: number }): Promise<number> {
  const dir = join(BENCH_DIR, 'results', 'profile');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const children: Managed[] = [];
  try {
    const upstream = await startUpstream();
    children.push(upstream);
    const loadgen = startLoadGen();
    children.push(loadgen);
    const patchbay = await startPatchbay(upstream.port, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=250']);
    children.push(patchbay);
    const job = (durationMs: number, maxRequests: number): Job => ({
      kind: 'chat',
      origin: patchbay.url,
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${patchbay.key}` },
      body: chatBody('llama-3.3-70b'),
      concurrency: 16,
      durationMs,
      maxRequests,
    });
    process.stderr.write(`[bench] profiling Patchbay (pid ${patchbay.pid}): warm-up, then ${options.seconds} s of chat at concurrency 16 ...\n`);
    await loadgen.run(job(30_000, 3000));
    const cpuBefore = cpuMs(patchbay.pid);
    // On the profile's own clock (monotonic µs, its startTime): measured from the spawn, the window
    // was late by Node's start-up and took in the shutdown (the database closing).
    const loadStart = Number(process.hrtime.bigint() / 1000n);
    const result = await loadgen.run(job(options.seconds * 1000, 10_000_000));
    const loadEnd = Number(process.hrtime.bigint() / 1000n);
    const cpuUs = ((cpuMs(patchbay.pid) - cpuBefore) * 1000) / result.count;
    if (result.errors) process.stderr.write(`[bench] ${result.errors} wrong answers, e.g. ${result.errorSamples.join(' | ')}\n`);
    // A clean SIGTERM lets Patchbay close and Node write the profile on exit.
    await patchbay.stop(40_000);
    rmSync(patchbay.dataDir, { recursive: true, force: true });
    const file = readdirSync(dir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => join(dir, f))
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
    if (!file) throw new Error(`Patchbay wrote no .cpuprofile into ${dir}:\n${patchbay.output()}`);
    const title = `Patchbay CPU profile: chat at concurrency 16, ${result.count} requests in ${fmt(result.elapsedMs / 1000, 1)} s (${fmt(result.count / (result.elapsedMs / 1000), 0)} req/s, ${fmt(cpuUs, 0)} µs CPU per request while profiled)`;
    // Only the measured load counts: start-up (type stripping, module loading) and warm-up are cut.
    const startTime = (JSON.parse(readFileSync(file, 'utf8')) as { startTime: number }).startTime;
    const window = { fromMs: (loadStart - startTime) / 1000 + 250, toMs: (loadEnd - startTime) / 1000 - 100 };
    const markdown = profileMarkdown(analyzeProfile(file, 25, window), `${title}; samples from ${fmt(window.fromMs / 1000, 1)} s to ${fmt(window.toMs / 1000, 1)} s after start`);
    writeFileSync(join(BENCH_DIR, 'results', 'profile.md'), markdown);
    process.stdout.write(markdown);
    process.stderr.write(`[bench] profile: ${file}; summary in bench/results/profile.md\n`);
    return result.errors ? 1 : 0;
  } finally {
    await Promise.all(children.map((child) => child.stop(5_000)));
  }
}
