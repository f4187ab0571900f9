import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { substitute } from './docs-blocks.ts';

/** A systemd unit file: section -> key -> values in order (a key may repeat, as Environment= does). */
export type UnitFile = Map<string, Map<string, string[]>>;

export function parseUnit(text: string): UnitFile {
  const unit: UnitFile = new Map();
  let section: Map<string, string[]> | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = new Map();
      unit.set(header[1], section);
      continue;
    }
    const eq = line.indexOf('=');
    if (!section || eq === -1) throw new Error(`Not a unit file line: ${raw}`);
    const key = line.slice(0, eq).trim();
    section.set(key, [...(section.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return unit;
}

/** A machine of the test: its own root for the docs' absolute paths, and who `User=` runs as. */
export interface FakeMachine {
  name: string;
  /** The docs' paths and names -> this machine's (applied to a unit file before it is read). */
  map: Record<string, string>;
  /** The unprivileged account units run as when the test runs as root (else the test's own user). */
  account: { uid: number; gid: number; home: string; name: string } | null;
  /** Where units' output goes (journalctl reads it). */
  logDir: string;
}

interface RunningUnit {
  child: ChildProcess;
  exited: Promise<number | null>;
  stopping: boolean;
}

/**
 * Enough of systemd for a deployment test to run the docs' `systemctl` and `journalctl` commands
 * against a unit file: `systemctl daemon-reload | enable [--now] | start | stop | restart | is-active`
 * and `journalctl -u UNIT [-n N]`. The commands the docs run are shims (shell scripts first on
 * PATH) that ask this object, in the test's process, over loopback HTTP; it starts ExecStart as
 * `User=` with the unit's Environment= and EnvironmentFile=, stops with KillSignal= and waits up to
 * TimeoutStopSec= as systemd does, and keeps each unit's output as its journal. Not systemd: no
 * sandboxing (ProtectSystem= and the like are checked by `systemd-analyze verify` instead).
 */
export class FakeSystemd {
  private server: Server | null = null;
  private url = '';
  private readonly units = new Map<string, RunningUnit>();
  /** Every run's output of a unit, in order, as journald keeps it across restarts. */
  private readonly journals = new Map<string, string>();
  /** Every start and stop, in order: [machine, unit, what, at]. */
  readonly events: [string, string, string, number][] = [];

  private readonly machines: Map<string, FakeMachine>;

  constructor(machines: Map<string, FakeMachine>) {
    this.machines = machines;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const { machine, tool, args } = JSON.parse(body) as { machine: string; tool: string; args: string[] };
        this.command(machine, tool, args).then(
          (answer) => res.end(JSON.stringify(answer)),
          (error: unknown) => res.end(JSON.stringify({ code: 1, output: `${(error as Error).stack}\n` })),
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Writes `systemctl` and `journalctl` for a machine into binDir (put it first on PATH). */
  installShims(machine: string, binDir: string): void {
    mkdirSync(binDir, { recursive: true });
    const shim = join(import.meta.dirname, 'fake-systemd-shim.ts');
    for (const tool of ['systemctl', 'journalctl']) {
      const path = join(binDir, tool);
      writeFileSync(path, `#!/bin/sh\nFAKE_SYSTEMD_URL='${this.url}' FAKE_SYSTEMD_MACHINE='${machine}' exec '${process.execPath}' '${shim}' ${tool} "$@"\n`);
      chmodSync(path, 0o755);
    }
  }

  /** The unit's output so far, every run of it (its journal). */
  journal(machine: string, unit: string): string {
    return this.journals.get(`${machine}/${unit}`) ?? '';
  }

  /** The running unit's main process id, or null. */
  pid(machine: string, unit: string): number | null {
    const running = this.units.get(`${machine}/${unit}`);
    return running && running.child.exitCode === null && running.child.signalCode === null ? (running.child.pid ?? null) : null;
  }

  async command(machineName: string, tool: string, args: string[]): Promise<{ code: number; output: string }> {
    const machine = this.machines.get(machineName);
    if (!machine) return { code: 1, output: `no machine ${machineName}\n` };
    const unitName = (name: string) => name.replace(/\.service$/, '');
    if (tool === 'journalctl') {
      const unit = args[args.indexOf('-u') + 1];
      const lines = Number(args.includes('-n') ? args[args.indexOf('-n') + 1] : Infinity);
      const log = this.journal(machineName, unitName(unit)).split('\n');
      return { code: 0, output: `${log.slice(Number.isFinite(lines) ? -lines - 1 : 0).join('\n')}` };
    }
    const [verb, ...rest] = args.filter((arg) => !['--no-pager', '--quiet', '-q'].includes(arg));
    const names = rest.filter((arg) => !arg.startsWith('-')).map(unitName);
    switch (verb) {
      case 'daemon-reload':
        return { code: 0, output: '' };
      case 'enable':
        if (rest.includes('--now')) for (const name of names) await this.startUnit(machine, name);
        return { code: 0, output: '' };
      case 'start':
        for (const name of names) await this.startUnit(machine, name);
        return { code: 0, output: '' };
      case 'stop':
        for (const name of names) await this.stopUnit(machine, name);
        return { code: 0, output: '' };
      case 'restart':
        for (const name of names) {
          await this.stopUnit(machine, name);
          await this.startUnit(machine, name);
        }
        return { code: 0, output: '' };
      case 'is-active': {
        const active = names.every((name) => this.pid(machineName, name) !== null);
        return { code: active ? 0 : 3, output: `${active ? 'active' : 'inactive'}\n` };
      }
      default:
        return { code: 1, output: `fake systemctl: ${verb} is not emulated\n` };
    }
  }

  /** Reads the unit as this machine has it (its paths mapped) and starts ExecStart as systemd would. */
  async startUnit(machine: FakeMachine, name: string): Promise<void> {
    const key = `${machine.name}/${name}`;
    if (this.pid(machine.name, name) !== null) return;
    const text = substitute(readFileSync(substitute(`/etc/systemd/system/${name}.service`, machine.map), 'utf8'), machine.map);
    const service = parseUnit(text).get('Service');
    if (!service) throw new Error(`${name}.service has no [Service] section`);
    const one = (k: string) => service.get(k)?.at(-1);
    const account = one('User') ? machine.account : null;
    const env: Record<string, string> = account ? { HOME: account.home, USER: account.name, LOGNAME: account.name } : { HOME: process.env.HOME ?? '/' };
    for (const assignment of service.get('Environment') ?? []) {
      const eq = assignment.indexOf('=');
      env[assignment.slice(0, eq)] = assignment.slice(eq + 1);
    }
    for (const file of service.get('EnvironmentFile') ?? []) {
      for (const line of readFileSync(file.replace(/^-/, ''), 'utf8').split('\n')) {
        const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
        if (match) env[match[1]] = match[2].trim().replace(/^(["'])(.*)\1$/, '$2');
      }
    }
    for (const state of service.get('StateDirectory') ?? []) {
      const dir = substitute(`/var/lib/${state}`, machine.map);
      mkdirSync(dir, { recursive: true });
      chmodSync(dir, Number.parseInt(one('StateDirectoryMode') ?? '0755', 8));
      if (account) chownSync(dir, account.uid, account.gid);
    }
    const [command, ...argv] = one('ExecStart')!.split(/\s+/);
    const child = spawn(command, argv, { cwd: one('WorkingDirectory'), env, uid: account?.uid, gid: account?.gid, stdio: ['ignore', 'pipe', 'pipe'] });
    const running: RunningUnit = { child, exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))), stopping: false };
    const write = (data: Buffer) => {
      this.journals.set(key, `${this.journals.get(key) ?? ''}${data}`);
      writeFileSync(join(machine.logDir, `${name}.log`), data, { flag: 'a' });
    };
    child.stdout!.on('data', write);
    child.stderr!.on('data', write);
    void running.exited.then((code) => {
      this.events.push([machine.name, name, running.stopping ? `stopped (${code})` : `exited on its own (${code})`, performance.now()]);
    });
    this.units.set(key, running);
    this.events.push([machine.name, name, 'started', performance.now()]);
  }

  /** KillSignal=, then up to TimeoutStopSec= for the process to end, then SIGKILL (as systemd). */
  async stopUnit(machine: FakeMachine, name: string): Promise<void> {
    const running = this.units.get(`${machine.name}/${name}`);
    if (!running || this.pid(machine.name, name) === null) return;
    const text = substitute(readFileSync(substitute(`/etc/systemd/system/${name}.service`, machine.map), 'utf8'), machine.map);
    const service = parseUnit(text).get('Service')!;
    const timeoutS = Number(service.get('TimeoutStopSec')?.at(-1) ?? 90);
    running.stopping = true;
    running.child.kill((service.get('KillSignal')?.at(-1) ?? 'SIGTERM') as NodeJS.Signals);
    const timer = setTimeout(() => running.child.kill('SIGKILL'), timeoutS * 1000);
    await running.exited;
    clearTimeout(timer);
  }

  /** Stops every unit still running, then the control server. */
  async close(): Promise<void> {
    for (const [key, running] of this.units) {
      if (running.child.exitCode !== null || running.child.signalCode !== null) continue;
      const [machine, name] = key.split('/');
      await this.stopUnit(this.machines.get(machine)!, name).catch(() => running.child.kill('SIGKILL'));
    }
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
