import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { announceServer, listRunningServers } from '../../core/app/data-dir-lock.ts';

const NOBODY = 65534;
const root = process.getuid?.() === 0;

/** Issue 34 (3): the list of running servers, as a server writes it and the CLI reads it, on a real file system. */
describe('the per-user list of running servers', () => {
  const work = mkdtempSync(join(tmpdir(), 'patchbay-running-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  let n = 0;
  /** XDG_RUNTIME_DIR for one case: the list is its "patchbay" folder. */
  const runtime = () => {
    const dir = join(work, `run-${++n}`);
    mkdirSync(dir, { mode: 0o700 });
    return { env: { XDG_RUNTIME_DIR: dir }, list: join(dir, 'patchbay') };
  };
  const entry = { url: 'http://127.0.0.1:1', data_dir: '/nowhere' };

  it('a server makes the folder private (700) and its entry 600; the CLI reads it back', () => {
    const { env, list } = runtime();
    const remove = announceServer(env, entry);
    expect(lstatSync(list).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(list, `${process.pid}.json`)).mode & 0o777).toBe(0o600);
    expect(listRunningServers(env)).toEqual({ servers: [{ pid: process.pid, ...entry }], refused: null });
    remove();
    expect(listRunningServers(env).servers).toEqual([]);
  });

  it('an entry that is a link is neither written through nor read', () => {
    const { env, list } = runtime();
    mkdirSync(list, { mode: 0o700 });
    const victim = join(work, 'victim.json');
    writeFileSync(victim, JSON.stringify({ pid: process.pid, url: 'http://127.0.0.1:2', data_dir: '/elsewhere' }));
    symlinkSync(victim, join(list, `${process.pid}.json`));
    announceServer(env, entry);
    expect(JSON.parse(readFileSync(victim, 'utf8'))).toMatchObject({ url: 'http://127.0.0.1:2' });
    expect(listRunningServers(env).servers).toEqual([]);
  });

  it('a folder others can read or write is neither written nor read, and the reader is told why', () => {
    const { env, list } = runtime();
    mkdirSync(list);
    writeFileSync(join(list, '1.json'), JSON.stringify({ pid: process.pid, ...entry }));
    chmodSync(list, 0o777);
    announceServer(env, entry);
    expect(() => lstatSync(join(list, `${process.pid}.json`))).toThrow();
    expect(listRunningServers(env)).toEqual({ servers: [], refused: `Not using the list of running Patchbay servers in ${list}: its mode is 777, not 700 (only you may read and write it). Remove it (rm -r ${list}); the next Patchbay started makes it again.` });
  });

  it.runIf(root)('a folder of another user is neither written (through the links planted in it) nor read', () => {
    const { env, list } = runtime();
    mkdirSync(list, { mode: 0o700 });
    const victim = join(work, 'victim-2.txt');
    writeFileSync(victim, 'untouched\n');
    symlinkSync(victim, join(list, `${process.pid}.json`));
    writeFileSync(join(list, '1.json'), JSON.stringify({ pid: process.pid, ...entry }));
    chownSync(list, NOBODY, NOBODY);
    announceServer(env, entry);
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
    expect(listRunningServers(env)).toEqual({ servers: [], refused: `Not using the list of running Patchbay servers in ${list}: it belongs to another user (uid ${NOBODY}). Remove it (rm -r ${list}); the next Patchbay started makes it again.` });
  });

  it('a folder that is a link is not followed', () => {
    const { env, list } = runtime();
    const elsewhere = join(work, `elsewhere-${n}`);
    mkdirSync(elsewhere, { mode: 0o700 });
    symlinkSync(elsewhere, list);
    announceServer(env, entry);
    expect(() => lstatSync(join(elsewhere, `${process.pid}.json`))).toThrow();
    expect(listRunningServers(env).refused).toContain('it is a link');
  });
});
