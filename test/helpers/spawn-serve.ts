import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'patchbay.js');

/** `patchbay serve` as its own process (kill -9, start-up refusals): the real CLI, as an operator runs it. */
export interface ServeProcess {
  child: ChildProcess;
  /** The /v1 URL once it listens (resolved after the start's last line). */
  url: string;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** What a run of `patchbay serve` printed and how it ended, when it exits before listening. */
export interface ServeRefusal {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts `patchbay serve ARGS` with `env` (plus PATH); resolves when it listens, or with how it ended if it exits first. */
export function spawnServe(args: string[], env: Record<string, string>): Promise<ServeProcess | ServeRefusal> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { env: { PATH: process.env.PATH, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve) => {
    const onData = () => {
      // The start's last line: everything before it (listening, providers, dashboard) is printed.
      const match = /listening on (\S+)/.exec(stdout);
      if (!match || !/^Sign in: /m.test(stdout)) return;
      child.stdout.off('data', onData);
      resolve({ child, url: match[1], stdout: () => stdout, stderr: () => stderr, exited });
    };
    child.stdout.on('data', onData);
    void exited.then((code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * `patchbay keys create --name NAME` as an admin runs it beside a team's replica (which makes no key
 * of its own): through the running server of the data dir in `env` (PATCHBAY_HOME). Returns the key it printed.
 */
export async function createKeyWithCli(env: Record<string, string>, name = 'test'): Promise<string> {
  const { execFile } = await import('node:child_process');
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, [BIN, 'keys', 'create', '--name', name], { env: { PATH: process.env.PATH, ...env } }, (error, out, err) => (error ? reject(new Error(`keys create failed: ${err}`)) : resolve(out))),
  );
  return stdout.trim();
}
