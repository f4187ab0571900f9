import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Agent, undiciErrors } from '../../core/providers/undici-agent.ts';

const require = createRequire(import.meta.url);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe("undici's Agent without the rest of the package", () => {
  it('is the Agent and the error classes the package exports (an undici upgrade that moves them fails here)', () => {
    const undici = require('undici') as typeof import('undici');
    expect(Agent).toBe(undici.Agent);
    expect(undiciErrors).toBe(undici.errors);
    expect(new undiciErrors.HeadersTimeoutError()).toBeInstanceOf(undici.errors.HeadersTimeoutError);
  });

  it("the server's code (CLI, server composition, transport) loads none of undici's fetch, WebSocket, mock or cache modules", () => {
    // A fresh process: import what `patchbay serve` imports, then list the undici files Node loaded.
    const script = `
      await import(${JSON.stringify(new URL('core/cli/run-cli.ts', `file://${ROOT}`).href)});
      await import(${JSON.stringify(new URL('core/app/create-patchbay.ts', `file://${ROOT}`).href)});
      const { createRequire } = await import('node:module');
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('/node_modules/undici/'));
      console.log(JSON.stringify(loaded.map((f) => f.slice(f.indexOf('/node_modules/undici/') + 21))));
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).toBe(0);
    const loaded = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as string[];
    console.log(`undici files loaded by the server's code: ${loaded.length}`);
    expect(loaded).toContain('lib/dispatcher/agent.js');
    expect(loaded.filter((f) => f === 'index.js' || f.startsWith('lib/web/') || f.startsWith('lib/mock/') || f.startsWith('lib/cache/'))).toEqual([]);
  });
});
