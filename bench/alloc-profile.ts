// Bytes allocated per request, by the function that allocated them: the floor and Patchbay under the
// same load, each sampled through the inspector's heap profiler with collected objects included
// (what --heap-prof leaves out), so the figure is the allocation rate that drives the young
// generation's collections (and with them CPU and the p99), not what is still alive at the end.
//
//   node bench/alloc-profile.ts [--targets floor,patchbay] [--requests 5000] [--concurrency 16] [--stream]
//
// Unlike CPU time, bytes allocated per request hardly move with the machine's load, so a change
// to the hot path can be measured here on a busy machine (before/after with BENCH_PATCHBAY_BIN).
// Writes bench/results/alloc-profile.md and prints it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Job } from './loadgen.ts';
import { BENCH_DIR, startFloorProxy, startLoadGen, startPatchbay, startUpstream } from './procs.ts';
import { chatBody } from './wire.ts';

const { values } = parseArgs({
  options: {
    targets: { type: 'string', default: 'floor,patchbay' },
    requests: { type: 'string', default: '5000' },
    concurrency: { type: 'string', default: '16' },
    stream: { type: 'boolean', default: false },
    top: { type: 'string', default: '30' },
  },
});
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);
const kind = values.stream ? 'stream' : 'chat';

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/** A minimal Chrome DevTools Protocol client over the inspector's WebSocket. */
async function inspector(url: string): Promise<{ send: (method: string, params?: object) => Promise<Record<string, unknown>>; close: () => void }> {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve, { once: true });
    ws.addEventListener('error', reject, { once: true });
  });
  let next = 0;
  const pending = new Map<number, (result: Record<string, unknown>) => void>();
  ws.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown> };
    if (message.id !== undefined) pending.get(message.id)?.(message.result ?? {});
  });
  return {
    send: (method, params = {}) =>
      new Promise((resolve) => {
        const id = ++next;
        pending.set(id, resolve);
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

const upstream = await startUpstream();
const loadgen = startLoadGen();
await fetch(`http://127.0.0.1:${upstream.port}/__bench/config`, { method: 'POST', body: JSON.stringify({ chatDelayMs: 0, streamChunks: 20, streamDelayMs: 1 }) });
const lines: string[] = [`# Bytes allocated per request, ${kind} at concurrency ${concurrency} (${requests} requests, after 5,000 of warm-up)`, ''];
const totals: string[] = [];
try {
  for (const name of values.targets!.split(',')) {
    const args = ['--inspect=127.0.0.1:0'];
    const target = name === 'floor' ? await startFloorProxy(upstream.port, args) : await startPatchbay(upstream.port, args);
    const wsUrl = /ws:\/\/\S+/.exec(target.output())?.[0];
    if (!wsUrl) throw new Error(`${name} printed no inspector address:\n${target.output()}`);
    const job = (jobKind: Job['kind'], c: number, maxRequests: number): Job => ({
      kind: jobKind,
      origin: target.url,
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${'key' in target ? target.key : 'sk-bench-floor'}` },
      body: chatBody(name === 'floor' ? 'llama-3.3-70b-versatile' : 'llama-3.3-70b', jobKind === 'stream'),
      concurrency: c,
      durationMs: 120_000,
      maxRequests,
      streamChunks: 20,
    });
    await loadgen.run(job('chat', 16, 5000));
    if (kind === 'stream') await loadgen.run(job('stream', concurrency, 200));
    const client = await inspector(wsUrl);
    await client.send('HeapProfiler.enable');
    // 4 KB sampling: a few samples per request; collected objects count (they are the allocation rate).
    await client.send('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    const result = await loadgen.run(job(kind, concurrency, requests));
    const { profile } = (await client.send('HeapProfiler.stopSampling')) as { profile: { head: SamplingNode } };
    client.close();
    await target.stop(10_000);
    if (result.errors) throw new Error(`${name}: ${result.errors} wrong answers, e.g. ${result.errorSamples.join(' | ')}`);
    const bySite = new Map<string, number>();
    const walk = (node: SamplingNode) => {
      const frame = node.callFrame;
      const url = frame.url.replace(/^.*\/(node_modules|dist|bench|core)\//, '$1/').replace(/^file:\/\//, '');
      const site = `${frame.functionName || '(anonymous)'} ${url ? `${url}:${frame.lineNumber + 1}` : '(native)'}`;
      bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
      for (const child of node.children) walk(child);
    };
    walk(profile.head);
    const total = [...bySite.values()].reduce((a, b) => a + b, 0);
    totals.push(`| ${name} | ${result.count} | ${(total / result.count / 1024).toFixed(1)} |`);
    lines.push(`## ${name}: ${(total / result.count / 1024).toFixed(1)} KB per request`, '', '| bytes per request | allocated in |', '| ---: | --- |');
    for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) lines.push(`| ${(bytes / result.count).toFixed(0)} | ${site} |`);
    lines.push('');
  }
} finally {
  await Promise.all([upstream.stop(5000), loadgen.stop(5000)]);
}
const markdown = [...lines.slice(0, 2), '| target | requests | KB allocated per request |', '| --- | ---: | ---: |', ...totals, '', ...lines.slice(2)].join('\n');
mkdirSync(join(BENCH_DIR, 'results'), { recursive: true });
writeFileSync(join(BENCH_DIR, 'results', 'alloc-profile.md'), markdown);
process.stdout.write(markdown);
