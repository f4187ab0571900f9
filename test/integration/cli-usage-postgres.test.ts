import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStores } from '../../core/app/open-stores.ts';
import { runCli } from '../../core/cli/run-cli.ts';
import { EventHub } from '../../core/events/event-hub.ts';
import { generateUsageRows } from '../helpers/generate-usage-rows.ts';
import { startPostgres, type TestPostgres } from '../helpers/start-postgres.ts';

/**
 * `patchbay usage` on a team's database (PATCHBAY_DATABASE_URL, no server running) prints what it
 * prints on SQLite for the same rows: every grouping, the sessions and both exports, byte for byte.
 */
describe('patchbay usage on PostgreSQL answers as on SQLite', () => {
  let cluster: TestPostgres;
  const dirs: string[] = [];
  let sqliteEnv: NodeJS.ProcessEnv;
  let postgresEnv: NodeJS.ProcessEnv;
  const month = '2026-10';

  beforeAll(async () => {
    cluster = await startPostgres();
    const databaseUrl = await cluster.createDatabase();
    const newDir = () => {
      const dir = mkdtempSync(join(tmpdir(), 'patchbay-cli-usage-'));
      dirs.push(dir);
      return dir;
    };
    const keychain = `patchbay-test-cli-usage-${process.pid}`;
    sqliteEnv = { PATCHBAY_HOME: newDir(), PATCHBAY_KEYCHAIN_SERVICE: keychain };
    postgresEnv = { PATCHBAY_HOME: newDir(), PATCHBAY_KEYCHAIN_SERVICE: keychain, PATCHBAY_DATABASE_URL: databaseUrl };
    // The same rows in both, recorded through each backend's own store (keys: none, so ids cannot differ).
    const rows = [...generateUsageRows({ rows: 600, from: Date.UTC(2026, 9, 1), to: Date.UTC(2026, 10, 1), keys: [] })];
    for (const options of [{ dataDir: sqliteEnv.PATCHBAY_HOME! }, { dataDir: '/nonexistent', databaseUrl }]) {
      const stores = await openStores({ ...options, log: () => undefined, events: new EventHub() });
      for (const row of rows) stores.usage.record(row);
      await stores.close();
    }
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const cli = async (args: string[], env: NodeJS.ProcessEnv) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(args, { out: (t) => (stdout += t), err: (t) => (stderr += t), env, stdin: async () => '' });
    return { code, stdout, stderr };
  };

  for (const args of [
    ['usage', '--month', month],
    ...['model', 'provider', 'provider-key', 'key', 'day', 'session'].map((by) => ['usage', '--month', month, '--by', by]),
    ['usage', '--month', month, '--by', 'session', '--json'],
    ['usage', '--month', month, '--export', 'csv'],
    ['usage', '--month', month, '--export', 'json'],
  ]) {
    it(args.slice(3).join(' ') || 'usage', async () => {
      const [onSqlite, onPostgres] = [await cli(args, sqliteEnv), await cli(args, postgresEnv)];
      expect(onSqlite.code, onSqlite.stderr).toBe(0);
      expect(onSqlite.stdout.length).toBeGreaterThan(200);
      if (args.includes('--json')) {
        // Sums of costs printed in full: the two databases add the same amounts in another order (last-digit differences).
        const parse = (text: string) => JSON.parse(text, (_key, value) => (typeof value === 'number' ? Number(value.toPrecision(12)) : value));
        expect({ ...onPostgres, stdout: parse(onPostgres.stdout) }).toEqual({ ...onSqlite, stdout: parse(onSqlite.stdout) });
      } else expect(onPostgres).toEqual(onSqlite);
    });
  }
});
