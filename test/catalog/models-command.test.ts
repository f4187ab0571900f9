import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runModelsCommand } from '../../core/cli/models-command.ts';

const table = JSON.parse(readFileSync(new URL('../../core/catalog/sources/genai-prices.json', import.meta.url), 'utf8')) as unknown;

describe('patchbay models update without a running Patchbay', () => {
  let server: Server;
  let base: string;
  let closedPort: number;
  const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-models-cli-'));
  const run = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runModelsCommand(args, { out: (t) => out.push(t), err: (t) => err.push(t), env: { PATCHBAY_HOME: dataDir } });
    return { code, out: out.join(''), err: err.join('') };
  };

  beforeAll(async () => {
    server = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json', 'last-modified': 'Sat, 28 Nov 2026 12:00:00 GMT' }).end(JSON.stringify(table)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('offline: one line on stderr, exit 1, nothing written', async () => {
    const result = await run('update', '--url', `http://127.0.0.1:${closedPort}/data.json`);
    expect(result.code).toBe(1);
    expect(result.err).toBe(`Could not fetch the price table from http://127.0.0.1:${closedPort}/data.json (ECONNREFUSED): offline? Keeping the catalog in use.\n`);
    expect(existsSync(join(dataDir, 'catalog.json'))).toBe(false);
  });

  it('fetches the table into the data dir and says what changed', async () => {
    const result = await run('update', '--url', `${base}/data.json`);
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toMatch(/^Updated the catalog: 96 models, prices as of 2026-11-28: 0 added, 0 removed, \d+ prices changed\.\n$/);
    expect(JSON.parse(readFileSync(join(dataDir, 'catalog.json'), 'utf8'))).toMatchObject({ pricesAsOf: '2026-11-28' });
  });

  it('refuses a URL that is not http(s)', async () => {
    await expect(run('update', '--url', 'file:///etc/passwd')).rejects.toThrow('--url must be an http(s) URL.');
  });
});
