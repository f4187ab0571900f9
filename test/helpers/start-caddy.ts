import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { join } from 'node:path';

/** Debian's Caddy: `npm test` installs it as root (scripts/system-packages.js). */
export const CADDY_PATH = process.env.PATCHBAY_CADDY ?? 'caddy';

export interface TestCaddy {
  httpsPort: number;
  /** Caddy's local CA root (PEM), from its data dir: what the test's clients trust. */
  rootCertPem: string;
  rootCertPath: string;
  /** What Caddy printed (its JSON log lines). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Runs Debian's Caddy on a Caddyfile (a docs block), as a team's proxy. The test's own global
 * options go first: ports of its own instead of 80/443, no admin endpoint (another run's Caddy may
 * hold 2019), and never installing its CA into the machine's trust store; its storage (the local CA,
 * the certificates of `tls internal`) lives in `dir`.
 */
export async function startCaddy(siteBlocks: string, options: { dir: string; httpsPort: number; httpPort: number; serverName: string }): Promise<TestCaddy> {
  if (spawnSync('sh', ['-c', `command -v ${CADDY_PATH}`]).status !== 0) {
    throw new Error(`The team deployment test needs Caddy (${CADDY_PATH}), which is missing. Install it (Debian/Ubuntu: \`sudo apt-get install caddy\`; \`npm test\` run as root installs it) or point PATCHBAY_CADDY at a caddy binary.`);
  }
  mkdirSync(options.dir, { recursive: true });
  const caddyfile = join(options.dir, 'Caddyfile');
  const globals = `{\n\tadmin off\n\thttp_port ${options.httpPort}\n\thttps_port ${options.httpsPort}\n\tskip_install_trust\n\tstorage file_system ${join(options.dir, 'storage')}\n}\n\n`;
  writeFileSync(caddyfile, globals + siteBlocks);
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: options.dir, XDG_DATA_HOME: join(options.dir, 'data'), XDG_CONFIG_HOME: join(options.dir, 'config') };
  const child: ChildProcess = spawn(CADDY_PATH, ['run', '--config', caddyfile, '--adapter', 'caddyfile'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const rootCertPath = join(options.dir, 'storage', 'pki', 'authorities', 'local', 'root.crt');
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    // Ready once it serves TLS for the name with a certificate from its local CA.
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`Caddy exited (${child.exitCode}) before serving:\n${output}`);
      if (existsSync(rootCertPath) && (await handshakes(options.httpsPort, options.serverName, readFileSync(rootCertPath, 'utf8')))) break;
      if (Date.now() > deadline) throw new Error(`Caddy did not serve https://${options.serverName}:${options.httpsPort} within 60 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { httpsPort: options.httpsPort, rootCertPem: readFileSync(rootCertPath, 'utf8'), rootCertPath, output: () => output, stop };
}

/** True when a TLS handshake for `servername` verifies against `ca`. */
function handshakes(port: number, servername: string, ca: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, servername, ca }, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
    socket.setTimeout(5_000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}
