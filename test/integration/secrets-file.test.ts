import OpenAI from 'openai';
import pg from 'pg';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiEmulator } from '../emulators/openai-emulator.ts';
import { createKeyWithCli, spawnServe, type ServeProcess, type ServeRefusal } from '../helpers/spawn-serve.ts';
import { startPostgres, type TestPostgres } from '../helpers/start-postgres.ts';

const SECRET = `sk-secrets-file-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;

/** A server's provider secrets from a file only its user can read: checked at start, never in the database or the logs. */
describe('patchbay serve --secrets-file', () => {
  const emulator = new OpenAiEmulator({ apiKey: SECRET });
  let cluster: TestPostgres;
  let databaseUrl: string;
  let dir: string;
  let upstream: string;

  beforeAll(async () => {
    upstream = await emulator.start();
    cluster = await startPostgres();
    databaseUrl = await cluster.createDatabase();
    dir = mkdtempSync(join(tmpdir(), 'patchbay-secrets-'));
  }, 120_000);
  afterAll(async () => {
    await emulator.close();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const home = (name: string) => {
    const path = join(dir, name);
    const config = join(dir, `${name}.json`);
    writeFileSync(config, JSON.stringify({ providers: { openai: { baseUrl: `${upstream}/v1` } } }));
    return { PATCHBAY_HOME: path, config };
  };

  it('a secrets file other users can read (644) is refused at start, with the chmod 600 fix in the message', async () => {
    const file = join(dir, 'open-secrets.env');
    writeFileSync(file, `# team secrets\nOPENAI_API_KEY=${SECRET}\n`);
    chmodSync(file, 0o644);
    const { PATCHBAY_HOME, config } = home('refused');
    const result = (await spawnServe(['--config', config, '--secrets-file', file], { PATCHBAY_HOME })) as ServeRefusal;
    expect('url' in result).toBe(false);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`mode 644`);
    expect(result.stderr).toContain(`chmod 600 ${file}`);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    // Refused before anything opened: no data dir was made.
    expect(() => statSync(PATCHBAY_HOME)).toThrow();
    // PATCHBAY_SECRETS_FILE is checked the same way.
    const viaEnv = (await spawnServe(['--config', config], { PATCHBAY_HOME, PATCHBAY_SECRETS_FILE: file })) as ServeRefusal;
    expect(viaEnv.stderr).toContain(`chmod 600 ${file}`);
  }, 60_000);

  it("a 600 file's key reaches the provider as the Authorization, and is nowhere in the logs, PostgreSQL or the data dir", async () => {
    const file = join(dir, 'secrets.env');
    writeFileSync(file, `# provider secrets for the team gateway\nexport OPENAI_API_KEY="${SECRET}"\n\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    const { PATCHBAY_HOME, config } = home('served');
    const server = (await spawnServe(['--config', config, '--secrets-file', file, '--database', databaseUrl], { PATCHBAY_HOME })) as ServeProcess;
    expect('url' in server, (server as unknown as ServeRefusal).stderr).toBe(true);
    try {
      expect(server.stderr()).toContain(`Provider secrets from ${file}: OPENAI_API_KEY.`);
      expect(server.stdout()).toMatch(/Providers with a key: .*openai \(OPENAI_API_KEY\)/);
      // No keychain here: a missing key goes in the file, not through providers set-key.
      expect(server.stdout()).toContain(`add its variable (OPENAI_API_KEY=..., ...) to ${file} and restart`);
      // A team's replica makes no key: the admin makes the first with keys create.
      expect(server.stderr()).toContain('No Patchbay key exists yet');
      const key = await createKeyWithCli({ PATCHBAY_HOME });
      const client = new OpenAI({ baseURL: server.url, apiKey: key, maxRetries: 0 });
      const before = emulator.requests.length;
      const answer = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }], max_tokens: 5 });
      expect(answer.choices[0].message.content).toBeTruthy();
      expect(emulator.requests.slice(before).map((r) => r.headers.authorization)).toEqual([`Bearer ${SECRET}`]);
      // A second request: two usage rows for the search below.
      await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'again' }], max_tokens: 5 });
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    expect(server.stdout() + server.stderr()).not.toContain(SECRET);
    // Every table of the team's database, every row as text.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const tables = (await db.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")).rows.map((r) => r.table_name as string);
      expect(tables).toContain('usage');
      expect((await db.query('SELECT count(*)::int AS n FROM usage')).rows[0].n).toBe(2);
      for (const table of tables) {
        const { rows } = await db.query(`SELECT t::text AS row FROM "${table}" t`);
        for (const row of rows) expect(row.row as string, table).not.toContain(SECRET);
      }
    } finally {
      await db.end();
    }
    for (const name of readdirSync(PATCHBAY_HOME)) {
      const path = join(PATCHBAY_HOME, name);
      if (statSync(path).isFile()) expect(readFileSync(path, 'latin1'), name).not.toContain(SECRET);
    }
  }, 60_000);

  // Issue 34: a password in --database is in every local user's `ps`. The secrets file (or
  // PATCHBAY_DATABASE_URL) is where it belongs; serve says so when --database carries one.
  it('--database with a password starts, with a warning naming the safe places and not the password', async () => {
    const withPassword = databaseUrl.replace('postgres://patchbay@', 'postgres://patchbay:hunter2-in-ps@');
    const { PATCHBAY_HOME, config } = home('password-in-argv');
    const server = (await spawnServe(['--config', config, '--database', withPassword], { PATCHBAY_HOME })) as ServeProcess;
    expect('url' in server, (server as unknown as ServeRefusal).stderr).toBe(true);
    try {
      expect(server.stderr()).toContain('Warning: --database carries a password, which every user of this machine can read in the process list (ps) while Patchbay runs.');
      expect(server.stderr()).toContain('PATCHBAY_DATABASE_URL');
      expect(server.stderr()).toContain('--secrets-file');
      expect(server.stdout() + server.stderr()).not.toContain('hunter2-in-ps');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    // Without a password, or from the environment: no warning.
    const quiet = (await spawnServe(['--config', config, '--database', databaseUrl], { PATCHBAY_HOME })) as ServeProcess;
    try {
      expect(quiet.stderr()).not.toContain('Warning: --database');
    } finally {
      quiet.child.kill('SIGTERM');
      await quiet.exited;
    }
  }, 60_000);

  it('PATCHBAY_DATABASE_URL in the secrets file is the database, so its password is in no command line', async () => {
    const file = join(dir, 'team.env');
    writeFileSync(file, `OPENAI_API_KEY=${SECRET}\nPATCHBAY_DATABASE_URL=${databaseUrl.replace('postgres://patchbay@', 'postgres://patchbay:only-in-the-file@')}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    const { PATCHBAY_HOME, config } = home('database-from-file');
    const server = (await spawnServe(['--config', config, '--secrets-file', file], { PATCHBAY_HOME })) as ServeProcess;
    expect('url' in server, (server as unknown as ServeRefusal).stderr).toBe(true);
    try {
      expect(server.stderr()).not.toContain('Warning: --database');
      expect(server.stdout() + server.stderr()).not.toContain('only-in-the-file');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    // It ran on PostgreSQL: no SQLite database in its data dir.
    expect(readdirSync(PATCHBAY_HOME).filter((name) => name.startsWith('patchbay.db'))).toEqual([]);
  }, 60_000);
});
