import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStores } from '../../core/app/open-stores.ts';
import { runCli } from '../../core/cli/run-cli.ts';
import { EventHub } from '../../core/events/event-hub.ts';

/** `patchbay usage --by key` names each key as the dashboard does (it printed bare ids before). */
describe('patchbay usage --by key', () => {
  const home = mkdtempSync(join(tmpdir(), 'patchbay-usage-names-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('shows each key by its name, the id beside it; --json adds key_name', async () => {
    const stores = await openStores({ dataDir: home, log: () => undefined, events: new EventHub() });
    const alice = (await stores.keys.create({ name: 'alice' })).record;
    const bob = (await stores.keys.create({ name: 'bob' })).record;
    const ts = Date.UTC(2026, 9, 5);
    for (const [keyId, n] of [[alice.id, 3], [bob.id, 1], [null, 1]] as const) {
      for (let i = 0; i < n; i++) {
        stores.usage.record({
          ts, requestId: `${keyId}-${i}`, keyId, endpoint: 'chat', requestedModel: 'm', provider: 'openai', model: 'gpt-4o-mini', strategy: 'balanced',
          status: 200, errorType: null, stream: false, promptTokens: 10, completionTokens: 5, totalTokens: 15, inputPrice: 0, outputPrice: 0, costUsd: 0.01, latencyMs: 5, firstByteMs: null, attempts: [],
        });
      }
    }
    await stores.close();
    const cli = async (args: string[]) => {
      let out = '';
      const code = await runCli(args, { out: (t) => (out += t), err: () => undefined, env: { PATCHBAY_HOME: home, PATCHBAY_KEYCHAIN_SERVICE: `patchbay-test-usage-names-${process.pid}` } });
      expect(code).toBe(0);
      return out;
    };
    const table = await cli(['usage', '--month', '2026-10', '--by', 'key']);
    expect(table).toMatch(new RegExp(`^alice \\(${alice.id}\\)\\s+3\\s`, 'm'));
    expect(table).toMatch(new RegExp(`^bob \\(${bob.id}\\)\\s+1\\s`, 'm'));
    expect(table).toMatch(/^no key\s+1\s/m);
    const json = JSON.parse(await cli(['usage', '--month', '2026-10', '--by', 'key', '--json'])) as { rows: { group: string | null; key_name: string | null }[] };
    expect(json.rows.map((r) => [r.group, r.key_name])).toEqual(expect.arrayContaining([[alice.id, 'alice'], [bob.id, 'bob'], [null, null]]));
  });
});
