import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyStore } from '../../core/keys/key-store.ts';
import { openDatabase, type PatchbayDatabase } from '../../core/sqlite/open-database.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('KeyStore across connections (the server and the CLI on one database file)', () => {
  const opened: PatchbayDatabase[] = [];
  let dir = '';
  const open = () => {
    const db = openDatabase(dir);
    opened.push(db);
    return db;
  };
  afterEach(() => {
    for (const db of opened.splice(0)) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('notices keys revoked, changed and created by another connection within 100 ms', async () => {
    dir = mkdtempSync(join(tmpdir(), 'patchbay-keys-'));
    const server = new KeyStore(open());
    const cli = new KeyStore(open());
    const { record, secret } = cli.create({ name: 'editor' });
    expect(server.check(secret)).toMatchObject({ ok: true, record: { id: record.id, rpmLimit: null } });

    cli.update(record.id, { rpmLimit: 5 });
    await sleep(120);
    expect(server.check(secret)).toMatchObject({ ok: true, record: { rpmLimit: 5 } });

    const second = cli.create({ name: 'second' });
    cli.revoke(record.id);
    await sleep(120);
    expect(server.check(secret)).toMatchObject({ ok: false, reason: 'revoked' });
    expect(server.check(second.secret)).toMatchObject({ ok: true, record: { name: 'second' } });
  });

  it('keeps its keys when another connection writes usage rows, and still sees a later key change', async () => {
    dir = mkdtempSync(join(tmpdir(), 'patchbay-keys-'));
    const serverDb = open();
    const writerDb = open();
    const server = new KeyStore(serverDb);
    const { record, secret } = server.create({ name: 'app' });
    const insert = writerDb.prepare(
      `INSERT INTO usage (ts, request_id, endpoint, status, latency_ms, attempts) VALUES (?, ?, 'chat', 200, 1, '[]')`,
    );
    const before = server.check(secret);
    for (let i = 0; i < 3; i++) {
      insert.run(Date.now(), `req_${i}`);
      await sleep(110);
      // The same record object: the usage commits did not make the store reload its keys.
      expect(server.check(secret)).toMatchObject({ ok: true });
      expect((server.check(secret) as { record: unknown }).record).toBe((before as { record: unknown }).record);
    }
    new KeyStore(writerDb).revoke(record.id);
    await sleep(120);
    expect(server.check(secret)).toMatchObject({ ok: false, reason: 'revoked' });
  });
});
