import pg from 'pg';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStores, redactUrl } from '../../core/postgres/open-postgres-stores.ts';
import { POSTGRES_MIGRATIONS, migratePostgres } from '../../core/postgres/postgres-migrations.ts';
import { oldestCompatibleSchema } from '../../core/postgres/schema-compatibility.ts';
import { databaseTarget, DatabasePrivilegeError, describeDatabaseStartError, SchemaTooNewError } from '../../core/postgres/postgres-start-errors.ts';
import { EventHub } from '../../core/events/event-hub.ts';
import { startPostgres, testPool, type TestPostgres } from '../helpers/start-postgres.ts';

const RELEASE = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
/** The next release's schema: one expand step on top of this one's (a nullable column). */
const NEXT_RELEASE_MIGRATIONS = [...POSTGRES_MIGRATIONS, 'ALTER TABLE usage ADD COLUMN upgrade_probe text;'];

/** A real PostgreSQL 15 with password logins over TCP, as a team's server has; psql as the superuser over the socket. */
describe('PostgreSQL: creating the database, privileges, and schemas of two releases side by side', () => {
  let cluster: TestPostgres;
  let databases = 0;
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    cluster = await startPostgres({ superuser: 'postgres', passwords: true });
    await cluster.psql(`CREATE ROLE app LOGIN PASSWORD 'app-pw'`);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
    await cluster?.stop();
  });

  const urlOf = (database: string, password = 'app-pw') => `postgres://app:${password}@127.0.0.1:${cluster.port}/${database}`;
  const poolOf = (database: string) => {
    const pool = testPool({ connectionString: urlOf(database) });
    pools.push(pool);
    return pool;
  };
  const schemaRow = async (database: string) => (await cluster.psql('SELECT version, oldest_compatible, written_by FROM schema_version', database)).trim();

  it('a database owned by another user: the error names the missing CREATE privilege and the GRANT, which then works', async () => {
    const name = `owned_elsewhere_${++databases}`;
    await cluster.psql(`CREATE DATABASE ${name}`);
    const failure = await migratePostgres(poolOf(name)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DatabasePrivilegeError);
    const message = (failure as Error).message;
    expect(message).toContain(`PostgreSQL user "app" lacks the CREATE privilege on schema "public" of database "${name}"`);
    // The fix it names, run as it says (as the superuser), lets the same start succeed.
    const grant = /psql -d \S+ -c '([^']+)'/.exec(message)![1];
    expect(grant).toBe('GRANT USAGE, CREATE ON SCHEMA public TO app');
    await cluster.psql(grant, name);
    await expect(migratePostgres(poolOf(name))).resolves.toEqual({ note: null });
    expect(await schemaRow(name)).toBe(`${POSTGRES_MIGRATIONS.length}|${oldestCompatibleSchema(POSTGRES_MIGRATIONS.length)}|${RELEASE}`);
  });

  it('no usable schema at all: the error names USAGE on schema public', async () => {
    const name = `no_usage_${++databases}`;
    await cluster.psql(`CREATE DATABASE ${name}`);
    await cluster.psql('REVOKE ALL ON SCHEMA public FROM PUBLIC', name);
    const failure = await migratePostgres(poolOf(name)).catch((error: unknown) => error);
    expect((failure as Error).message).toContain(`PostgreSQL user "app" lacks the USAGE privilege on schema "public" of database "${name}"`);
  });

  it('CREATE DATABASE ... OWNER app is enough on PostgreSQL 15 (the schema public belongs to the database owner)', async () => {
    const name = `owned_by_app_${++databases}`;
    await cluster.psql(`CREATE DATABASE ${name} OWNER app`);
    await expect(migratePostgres(poolOf(name))).resolves.toEqual({ note: null });
  });

  it('a rolling upgrade: the next release expands the schema, and this release keeps starting and serving on it', async () => {
    const name = `rolling_${++databases}`;
    await cluster.psql(`CREATE DATABASE ${name} OWNER app`);
    await migratePostgres(poolOf(name));
    await expect(migratePostgres(poolOf(name), NEXT_RELEASE_MIGRATIONS)).resolves.toEqual({ note: null });
    expect(await schemaRow(name)).toBe(`${NEXT_RELEASE_MIGRATIONS.length}|${oldestCompatibleSchema(NEXT_RELEASE_MIGRATIONS.length)}|${RELEASE}`);
    // This release, restarting mid-rollout, uses the expanded database as it is, and says so.
    const { note } = await migratePostgres(poolOf(name));
    expect(note).toMatch(/newer than this Patchbay's .*still works with it/);
    expect(await schemaRow(name)).toBe(`${NEXT_RELEASE_MIGRATIONS.length}|${oldestCompatibleSchema(NEXT_RELEASE_MIGRATIONS.length)}|${RELEASE}`);
    // Its stores work there: a key, a usage row written and read back.
    const stores = await openPostgresStores({ url: urlOf(name), log: () => undefined, events: new EventHub() });
    try {
      const { record } = await stores.keys.create({ name: 'mid-rollout' });
      stores.usage.record({
        ts: Date.now(), requestId: 'mid-rollout-1', keyId: record.id, endpoint: 'chat', requestedModel: 'm', provider: 'p', model: 'm', strategy: 'balanced',
        status: 200, errorType: null, stream: false, promptTokens: 1, completionTokens: 1, totalTokens: 2, inputPrice: 0, outputPrice: 0, costUsd: 0, latencyMs: 1, firstByteMs: null, attempts: [],
      });
      await stores.usage.flushAsync();
      expect(await stores.reader.request('mid-rollout-1')).toMatchObject({ request_id: 'mid-rollout-1' });
    } finally {
      await stores.close();
    }
  });

  it('past a contract step this release refuses the database, saying which release to run and that upgrades go forward only', async () => {
    const name = `contracted_${++databases}`;
    await cluster.psql(`CREATE DATABASE ${name} OWNER app`);
    await migratePostgres(poolOf(name), NEXT_RELEASE_MIGRATIONS);
    // What a later release's contract step records: nothing older than its schema works any more.
    await cluster.psql(`UPDATE schema_version SET oldest_compatible = ${NEXT_RELEASE_MIGRATIONS.length}, written_by = '9.9.9'`, name);
    const failure = await migratePostgres(poolOf(name)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SchemaTooNewError);
    expect((failure as Error).message).toBe(
      `This PostgreSQL database is at schema ${NEXT_RELEASE_MIGRATIONS.length} (migrated by Patchbay 9.9.9), which works only with Patchbay releases of schema ${NEXT_RELEASE_MIGRATIONS.length} or newer; this Patchbay (${RELEASE}) is schema ${POSTGRES_MIGRATIONS.length}. ` +
        'Run Patchbay 9.9.9 or newer on this replica as well: an upgrade goes forward only (docs/team.md, "Rolling restarts and upgrades").',
    );
  });

  it('a database an older Patchbay migrated (no compatibility columns) is migrated and gains them', async () => {
    const name = `older_${++databases}`;
    await cluster.psql(`CREATE DATABASE ${name} OWNER app`);
    const pool = poolOf(name);
    await pool.query('CREATE TABLE schema_version (version integer NOT NULL); INSERT INTO schema_version VALUES (3)');
    for (const sql of POSTGRES_MIGRATIONS.slice(0, 3)) await pool.query(sql);
    await migratePostgres(pool);
    expect(await schemaRow(name)).toBe(`${POSTGRES_MIGRATIONS.length}|${oldestCompatibleSchema(POSTGRES_MIGRATIONS.length)}|${RELEASE}`);
  });

  describe("each start failure says what to fix, told by PostgreSQL's error code", () => {
    const failureOf = async (url: string) => {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
      try {
        await client.connect();
        return null;
      } catch (error) {
        return describeDatabaseStartError(error, databaseTarget(url, redactUrl(url)));
      } finally {
        await client.end().catch(() => undefined);
      }
    };

    it('a wrong password names the user and where the password goes, never the password', async () => {
      const message = await failureOf(urlOf('postgres', 'wrong-secret'));
      expect(message).toMatch(/^PostgreSQL at postgres:\/\/app:\*\*\*@127\.0\.0\.1:\d+\/postgres refused the password of user "app": .*Fix the password in --database \/ PATCHBAY_DATABASE_URL/);
      expect(message).not.toContain('wrong-secret');
      expect(message).not.toContain('running');
    });

    it('a missing database says to create it, owned by the user', async () => {
      const message = await failureOf(urlOf('nowhere'));
      expect(message).toContain('has no database "nowhere": create it, owned by "app" (docs/team.md, "Create the database")');
      expect(message).not.toContain('running');
    });

    it('a user without CONNECT on the database names the privilege and the GRANT', async () => {
      const name = `no_connect_${++databases}`;
      await cluster.psql(`CREATE DATABASE ${name}`);
      await cluster.psql(`REVOKE CONNECT ON DATABASE ${name} FROM PUBLIC`);
      const message = await failureOf(urlOf(name));
      expect(message).toContain(`PostgreSQL user "app" lacks a privilege Patchbay needs in database "${name}": permission denied for database "${name}"`);
      expect(message).toContain(`GRANT CONNECT ON DATABASE ${name} TO app`);
    });

    it('only a server that does not answer is told to check that PostgreSQL is running', async () => {
      const message = await failureOf('postgres://app:pw@127.0.0.1:1/patchbay');
      expect(message).toMatch(/^Cannot reach PostgreSQL at postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/patchbay: .*Check that PostgreSQL is running and reachable there/);
    });
  });
});
