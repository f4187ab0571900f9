import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RunningPrometheus {
  /** Its HTTP API, e.g. http://127.0.0.1:PORT */
  url: string;
  /** An instant PromQL query through the HTTP API (/api/v1/query): each series' labels and value. */
  query(promql: string): Promise<{ labels: Record<string, string>; value: number }[]>;
  /** The scrape target's health as Prometheus reports it (/api/v1/targets). */
  targets(): Promise<{ health: string; lastError: string; scrapeUrl: string }[]>;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Debian's real Prometheus (scripts/system-packages.js installs it for npm test), scraping one
 * target every second with a bearer token read from a file, its data in a throwaway folder.
 */
export async function startPrometheus(target: { host: string; port: number; path?: string; tokenFile: string }): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'patchbay-prometheus-'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'prometheus.yml'),
    [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      'scrape_configs:',
      '  - job_name: patchbay',
      `    metrics_path: ${target.path ?? '/metrics'}`,
      '    authorization:',
      '      type: Bearer',
      `      credentials_file: ${target.tokenFile}`,
      '    static_configs:',
      `      - targets: ['${target.host}:${target.port}']`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn('prometheus', [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(async () => (await fetch(`${url}/-/ready`).catch(() => null))?.ok === true, 30_000, () => `Prometheus did not become ready:\n${output}`);
  } catch (error) {
    await stop();
    throw error;
  }
  const api = async (path: string) => {
    const body = (await (await fetch(`${url}${path}`)).json()) as { status: string; data: unknown; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus ${path}: ${body.error}`);
    return body.data;
  };
  return {
    url,
    async query(promql) {
      const data = (await api(`/api/v1/query?query=${encodeURIComponent(promql)}`)) as { result: { metric: Record<string, string>; value: [number, string] }[] };
      return data.result.map((series) => ({ labels: series.metric, value: Number(series.value[1]) }));
    },
    async targets() {
      const data = (await api('/api/v1/targets')) as { activeTargets: { health: string; lastError: string; scrapeUrl: string }[] };
      return data.activeTargets;
    },
    output: () => output,
    stop,
  };
}

/** Polls until `check` is true, or fails with `describe()` after `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(describe());
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
