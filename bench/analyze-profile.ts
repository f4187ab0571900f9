// Aggregates a V8 .cpuprofile (from node --cpu-prof) into self time per function and per file or
// package, and inclusive time per Patchbay core function. Usable alone:
//   node bench/analyze-profile.ts path/to/file.cpuprofile [--top N] [--from-ms MS] [--to-ms MS]
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './procs.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface Entry {
  name: string;
  where: string;
  group: string;
  ms: number;
  /** Share of the busy (non-idle) time, in %. */
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  busyMs: number;
  gcMs: number;
  selfByFunction: Entry[];
  selfByGroup: Entry[];
  /** Self time by layer, native frames charged to the JavaScript that called them. */
  selfByLayer: Entry[];
  inclusiveCore: Entry[];
}

/** The layer a file or package belongs to, for the per-layer table. */
function layerOf(group: string): string {
  if (group.startsWith('core/')) return `Patchbay ${group.split('/').slice(0, 2).join('/')}`;
  if (group === '(garbage collector)' || group === '(program)') return group;
  if (['npm express', 'npm router', 'npm finalhandler', 'npm parseurl', 'npm path-to-regexp', 'npm on-finished', 'npm depd', 'npm send'].includes(group)) return 'Express + router';
  if (group === 'npm undici') return 'undici (upstream client)';
  if (group === 'npm zod') return 'zod (request validation)';
  if (group === 'npm better-sqlite3') return 'better-sqlite3';
  if (group.startsWith('npm ')) return `other packages (${group.slice(4)})`;
  if (/^node (_http|net|stream|streams|internal\/streams|http)/.test(group) || group.startsWith('node streams') || group.startsWith('node stream_base')) return 'Node http / net / streams';
  if (group.startsWith('node ')) return 'Node runtime (events, timers, microtasks, crypto …)';
  return group;
}

/** Where a frame lives: a Patchbay core file, an npm package, a node: module, or V8 itself. */
function locate(frame: CallFrame): { where: string; group: string } {
  const url = frame.url;
  if (!url) return { where: '(native)', group: frame.functionName.startsWith('(') ? frame.functionName : 'V8 builtins / native' };
  if (url.startsWith('node:')) return { where: `${url}:${frame.lineNumber + 1}`, group: `node ${url.slice(5).split('/')[0] === 'internal' ? url.slice(5).split('/').slice(1, 3).join('/') : url.slice(5)}` };
  let path = url;
  if (url.startsWith('file://')) {
    try {
      path = relative(ROOT, fileURLToPath(url));
    } catch {
      path = url;
    }
  }
  const modules = path.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = path.slice(modules + 'node_modules/'.length).split('/');
    const pkg = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    return { where: `${pkg}/…/${rest[rest.length - 1]}:${frame.lineNumber + 1}`, group: `npm ${pkg}` };
  }
  // core/ compiled to JavaScript (npm start, npm run bench) is grouped as its source file (line numbers are the compiled file's).
  // Another checkout's build (BENCH_PATCHBAY_BIN, e.g. ../before/dist/core/...) is grouped the same way.
  const dist = path.indexOf('dist/core/');
  if (dist >= 0) path = path.slice(dist + 'dist/'.length).replace(/\.js$/, '.ts');
  return { where: `${path}:${frame.lineNumber + 1}`, group: path };
}

/**
 * `window` keeps only the samples taken between fromMs and toMs after the profile started (the
 * process start, with --cpu-prof), so start-up and warm-up do not count.
 */
export function analyzeProfile(file: string, top = 15, window: { fromMs: number; toMs: number } = { fromMs: 0, toMs: Infinity }): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const selfUs = new Map<number, number>();
  // timeDeltas[i + 1] is the time from sample i to the next one: the time sample i stands for.
  let at = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (at < window.fromMs * 1000 || at > window.toMs * 1000) continue;
    const us = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + us);
  }
  const keyOf = (frame: CallFrame) => `${frame.functionName || '(anonymous)'}|${frame.url}|${frame.lineNumber}`;
  const fnSelf = new Map<string, { frame: CallFrame; us: number }>();
  const groupSelf = new Map<string, number>();
  const layerSelf = new Map<string, number>();
  // A native or wasm frame (JSON.parse, a socket write, undici's llhttp parser ...) is charged to
  // the nearest JavaScript caller.
  const chargedGroup = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (frame.url && !frame.url.startsWith('wasm://')) return locate(frame).group;
      if (frame.functionName === '(garbage collector)' || frame.functionName === '(program)') return frame.functionName;
    }
    return 'V8 builtins / native';
  };
  let totalUs = 0;
  let idleUs = 0;
  let gcUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    totalUs += us;
    if (frame.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    if (frame.functionName === '(garbage collector)') gcUs += us;
    const key = keyOf(frame);
    const entry = fnSelf.get(key) ?? { frame, us: 0 };
    entry.us += us;
    fnSelf.set(key, entry);
    const group = locate(frame).group;
    groupSelf.set(group, (groupSelf.get(group) ?? 0) + us);
    const layer = layerOf(chargedGroup(id));
    layerSelf.set(layer, (layerSelf.get(layer) ?? 0) + us);
  }
  // Inclusive time per Patchbay core function: each sample counts once for every distinct core
  // function on its stack.
  const coreInclusive = new Map<string, { frame: CallFrame; us: number }>();
  const stackCache = new Map<number, string[]>();
  const coreStack = (id: number): string[] => {
    const cached = stackCache.get(id);
    if (cached) return cached;
    const keys = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (locate(frame).group.startsWith('core/')) keys.add(keyOf(frame));
    }
    const list = [...keys];
    stackCache.set(id, list);
    return list;
  };
  for (const [id, us] of selfUs) {
    for (const key of coreStack(id)) {
      const [functionName, url, line] = key.split('|');
      const entry = coreInclusive.get(key) ?? { frame: { functionName, url, lineNumber: Number(line), columnNumber: 0 }, us: 0 };
      entry.us += us;
      coreInclusive.set(key, entry);
    }
  }
  const busyUs = totalUs - idleUs;
  const entries = (map: Map<string, { frame: CallFrame; us: number }>) =>
    [...map.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map(({ frame, us }) => ({ name: frame.functionName || '(anonymous)', ...locate(frame), ms: us / 1000, share: (100 * us) / busyUs }));
  return {
    totalMs: totalUs / 1000,
    idleMs: idleUs / 1000,
    busyMs: busyUs / 1000,
    gcMs: gcUs / 1000,
    selfByFunction: entries(fnSelf),
    selfByGroup: [...groupSelf.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([group, us]) => ({ name: group, where: '', group, ms: us / 1000, share: (100 * us) / busyUs })),
    selfByLayer: [...layerSelf.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([layer, us]) => ({ name: layer, where: '', group: layer, ms: us / 1000, share: (100 * us) / busyUs })),
    inclusiveCore: entries(coreInclusive),
  };
}

export function profileMarkdown(summary: ProfileSummary, title: string): string {
  const lines = [
    `# ${title}`,
    '',
    `Profiled ${summary.totalMs.toFixed(0)} ms: busy ${summary.busyMs.toFixed(0)} ms (GC ${summary.gcMs.toFixed(0)} ms), idle ${summary.idleMs.toFixed(0)} ms. Shares are of the busy time.`,
    '',
    '## Self time by function',
    '',
    '| # | function | where | self ms | share |',
    '| ---: | --- | --- | ---: | ---: |',
    ...summary.selfByFunction.map((e, i) => `| ${i + 1} | ${e.name} | ${e.where} | ${e.ms.toFixed(0)} | ${e.share.toFixed(1)} % |`),
    '',
    '## Self time by layer (native code charged to its JavaScript caller)',
    '',
    '| layer | self ms | share |',
    '| --- | ---: | ---: |',
    ...summary.selfByLayer.map((e) => `| ${e.name} | ${e.ms.toFixed(0)} | ${e.share.toFixed(1)} % |`),
    '',
    '## Self time by file or package',
    '',
    '| # | file / package | self ms | share |',
    '| ---: | --- | ---: | ---: |',
    ...summary.selfByGroup.map((e, i) => `| ${i + 1} | ${e.name} | ${e.ms.toFixed(0)} | ${e.share.toFixed(1)} % |`),
    '',
    '## Inclusive time of Patchbay core functions',
    '',
    '| # | function | where | inclusive ms | share |',
    '| ---: | --- | --- | ---: | ---: |',
    ...summary.inclusiveCore.map((e, i) => `| ${i + 1} | ${e.name} | ${e.where} | ${e.ms.toFixed(0)} | ${e.share.toFixed(1)} % |`),
    '',
  ];
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('Usage: node bench/analyze-profile.ts FILE.cpuprofile [--top N] [--from-ms MS] [--to-ms MS]\n');
    process.exit(2);
  }
  const flag = (name: string, fallback: number) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? Number(process.argv[at + 1]) : fallback;
  };
  const summary = analyzeProfile(file, flag('--top', 15), { fromMs: flag('--from-ms', 0), toMs: flag('--to-ms', Infinity) });
  process.stdout.write(profileMarkdown(summary, `CPU profile ${file}`));
}
