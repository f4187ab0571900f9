import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'patchbay.js');
const home = mkdtempSync(join(tmpdir(), 'patchbay-host-'));

/** This machine's addresses another machine could reach it at (what `--host 0.0.0.0` exposes). */
const externalIpv4 = Object.values(networkInterfaces())
  .flat()
  .filter((nic) => nic && !nic.internal && nic.family === 'IPv4')
  .map((nic) => nic!.address);

describe('patchbay serve --host 0.0.0.0', () => {
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('prints the addresses it really listens on and warns that the API is reachable from the network; those addresses pass the Host guard', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--host', '0.0.0.0', '--port', '0'], { env: { PATH: process.env.PATH, PATCHBAY_HOME: home } });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // 'close' comes after both pipes are drained, so everything printed is in stdout and stderr by then.
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d) => {
          stdout += d;
          if (/^Patchbay listening on http:\/\/127\.0\.0\.1:\d+\/v1/m.test(stdout)) resolve();
        });
        void closed.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
      });
      const port = /127\.0\.0\.1:(\d+)/.exec(stdout)![1];
      // The first key is printed before the listening line.
      const key = /^\s+(pb-\S+)$/m.exec(stderr)![1];
      for (const address of externalIpv4) {
        const response = await fetch(`http://${address}:${port}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
        expect(response.status).toBe(200);
      }
      child.kill('SIGTERM');
      expect(await closed).toBe(0);
      // No 0.0.0.0 URL (a browser cannot open it), a loopback URL for this machine, and each external address.
      expect(stdout).not.toContain('0.0.0.0');
      for (const address of externalIpv4) expect(stdout).toContain(`http://${address}:${port}/v1`);
      expect(stderr).toMatch(/reachable from the network[^\n]*protected only by Patchbay keys[^\n]*--host 127\.0\.0\.1/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
