// Child processes of the bench (upstream, load generator, the floor proxy, the two gateways) and
// what /proc says about them. Each gateway runs as its own process so its CPU time and memory are its own.
import { createHash } from 'node:crypto';
import { execFileSync, fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_ENV, NODE_FLAGS } from '../bin/node-flags.js';
import type { Job, JobResult } from './loadgen.ts';

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT = dirname(BENCH_DIR);

let clockTicks = 0;

/** Clock ticks per second for /proc/<pid>/stat (USER_HZ, 100 on Linux almost always). */
export function ticksPerSecond(): number {
  if (!clockTicks) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** CPU time (user + system, all threads) the process has used, in ms. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after "pid (comm) ": state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond();
}

/** Resident set now and its peak (VmRSS, VmHWM), in MB. */
export function memoryMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitForPort(port: number, child: ChildProcess, what: string, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode} before listening`);
    if (await canConnect(port)) return;
    await sleep(50);
  }
  throw new Error(`${what} did not listen on port ${port} within ${timeoutMs} ms`);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Keeps the last lines a child printed, for the error message when it misbehaves. */
function tail(child: ChildProcess): () => string {
  const lines: string[] = [];
  const keep = (data: Buffer) => {
    lines.push(...data.toString('utf8').split('\n').filter(Boolean));
    if (lines.length > 40) lines.splice(0, lines.length - 40);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => lines.join('\n');
}

export interface Managed {
  child: ChildProcess;
  pid: number;
  output: () => string;
  /** SIGTERM, then SIGKILL after the grace period; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

function managed(child: ChildProcess): Managed {
  const output = tail(child);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    child,
    pid: child.pid!,
    output,
    async stop(graceMs = 10_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

export async function startUpstream(): Promise<Managed & { port: number }> {
  const child = fork(join(BENCH_DIR, 'upstream.ts'), [], { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`the bench upstream exited with code ${code}`)));
  });
  return { ...managed(child), port };
}

/** The load generator: a forked process that runs one job at a time over IPC. */
export interface LoadGen extends Managed {
  run(job: Job): Promise<JobResult>;
}

export function startLoadGen(): LoadGen {
  const child = fork(join(BENCH_DIR, 'loadgen.ts'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
  let next = 0;
  const waiting = new Map<number, { resolve: (r: JobResult) => void; reject: (e: Error) => void }>();
  child.on('message', (message: { id: number; result?: JobResult; error?: string }) => {
    const entry = waiting.get(message.id);
    if (!entry) return;
    waiting.delete(message.id);
    if (message.error) entry.reject(new Error(`load generator: ${message.error}`));
    else entry.resolve(message.result!);
  });
  child.on('exit', (code) => {
    for (const entry of waiting.values()) entry.reject(new Error(`the load generator exited with code ${code}`));
    waiting.clear();
  });
  return {
    ...managed(child),
    run(job: Job) {
      const id = ++next;
      return new Promise<JobResult>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        child.send({ id, job });
      });
    },
  };
}

export interface PatchbayProcess extends Managed {
  url: string;
  key: string;
  dataDir: string;
}

/**
 * Patchbay as a user runs it: `patchbay serve` with a config file in its data dir that points the
 * groq, together and openai providers at the bench upstream, provider secrets in the environment,
 * and an API key with rate limits (so the limiter runs on every request).
 */
export async function startPatchbay(upstreamPort: number, nodeArgs: string[] = [], extraEnv: Record<string, string> = {}): Promise<PatchbayProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-bench-'));
  const upstream = `http://127.0.0.1:${upstreamPort}`;
  writeFileSync(
    join(dataDir, 'config.json'),
    JSON.stringify(
      {
        providers: {
          groq: { baseUrl: `${upstream}/groq/v1` },
          together: { baseUrl: `${upstream}/together/v1` },
          openai: { baseUrl: `${upstream}/openai/v1` },
        },
      },
      null,
      2,
    ),
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // Keys shaped as real ones are (a prefix and random characters): the answers' secret scan then
    // costs what it costs a user. Words as keys ('sk-bench-openai') collided with the bench's own
    // answers ("chatcmpl-bench"), so the scan ran its patterns on every answer.
    GROQ_API_KEY: benchKey('gsk_', 'groq'),
    TOGETHER_API_KEY: benchKey('tgp_v1_', 'together'),
    OPENAI_API_KEY: benchKey('sk-proj-', 'openai'),
    // Never read the developer's own keychain entries.
    PATCHBAY_KEYCHAIN_SERVICE: 'patchbay-bench',
    PATCHBAY_HOME: dataDir,
    // The environment `npm start` and the bin's shebang give the server.
    ...NODE_ENV,
    ...extraEnv,
  };
  delete env.ANTHROPIC_API_KEY;
  delete env.GEMINI_API_KEY;
  // BENCH_PATCHBAY_BIN runs another build of the same CLI (e.g. one compiled to JavaScript).
  const bin = process.env.BENCH_PATCHBAY_BIN || join(ROOT, 'bin', 'patchbay.js');
  // BENCH_TOKEN_CAP gives the key a monthly token cap too (bench/postgres-column.ts: one reservation and one settlement per request).
  const cap = env.BENCH_TOKEN_CAP ? ['--token-cap', env.BENCH_TOKEN_CAP] : [];
  // BENCH_NO_RATE_LIMITS: a key without rpm/tpm limits (on PostgreSQL, the shared rate windows cost one round trip per request).
  const limits = env.BENCH_NO_RATE_LIMITS ? [] : ['--rpm', '100000000', '--tpm', '1000000000000'];
  const created = spawnSync(process.execPath, [bin, 'keys', 'create', '--name', 'bench', ...limits, ...cap, '--data-dir', dataDir], { env, encoding: 'utf8' });
  const key = created.stdout.trim();
  if (created.status !== 0 || !key.startsWith('pb-')) throw new Error(`"patchbay keys create" failed (${created.status}): ${created.stderr}`);

  // The flags `npm start` and the bin's shebang run Patchbay with; a flag given in nodeArgs replaces its default.
  const flags = NODE_FLAGS.filter((flag) => !nodeArgs.some((arg) => arg.split('=')[0] === flag.split('=')[0]));
  const child = spawn(process.execPath, [...nodeArgs, ...flags, bin, 'serve', '--port', '0', '--data-dir', dataDir], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const process_ = managed(child);
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`Patchbay did not start within 30 s:\n${process_.output()}`)), 30_000);
    child.stdout!.on('data', (data: Buffer) => {
      seen += data.toString('utf8');
      const match = /Patchbay listening on (http:\/\/\S+)\/v1/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Patchbay exited with code ${code}:\n${process_.output()}`));
    });
  });
  return { ...process_, url, key, dataDir };
}

export interface PortkeyProcess extends Managed {
  url: string;
}

/** The Portkey gateway from node_modules, as `npx @portkey-ai/gateway --port=N` starts it. */
export async function startPortkey(): Promise<PortkeyProcess> {
  const port = await freePort();
  const entry = join(ROOT, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
  const child = spawn(process.execPath, [entry, `--port=${port}`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } });
  const process_ = managed(child);
  try {
    await waitForPort(port, child, 'Portkey');
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${process_.output()}`);
  }
  return { ...process_, url: `http://127.0.0.1:${port}` };
}

export interface FloorProcess extends Managed {
  url: string;
}

/**
 * The bare Node pass-through proxy (floor-proxy.mjs), run with the same node flags and environment as Patchbay so
 * the two differ only in what the code does per request. It reports its port over IPC.
 */
export async function startFloorProxy(upstreamPort: number, nodeArgs: string[] = []): Promise<FloorProcess> {
  const entry = join(BENCH_DIR, 'floor-proxy.mjs');
  // A flag given in nodeArgs replaces its default, as for Patchbay.
  const flags = NODE_FLAGS.filter((flag) => !nodeArgs.some((arg) => arg.split('=')[0] === flag.split('=')[0]));
  const child = spawn(process.execPath, [...nodeArgs, ...flags, entry, `http://127.0.0.1:${upstreamPort}`], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: { ...process.env, ...NODE_ENV } });
  const process_ = managed(child);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the floor proxy did not start within 30 s:\n${process_.output()}`)), 30_000);
    child.once('message', (message: { port: number }) => {
      clearTimeout(timer);
      resolve(message.port);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the floor proxy exited with code ${code}:\n${process_.output()}`));
    });
  });
  return { ...process_, url: `http://127.0.0.1:${port}` };
}

export function portkeyVersions(): { gateway: string; nodeServer: string; hono: string } {
  const version = (name: string) => {
    try {
      return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      return 'missing';
    }
  };
  return { gateway: version('@portkey-ai/gateway'), nodeServer: version('@hono/node-server'), hono: version('hono') };
}

/** A provider key for the bench: the provider's prefix and 48 characters that look random (the same each run). */
function benchKey(prefix: string, provider: string): string {
  return prefix + createHash('sha256').update(`patchbay-bench-${provider}`).digest('base64url').slice(0, 43) + createHash('sha256').update(provider).digest('hex').slice(0, 5);
}
