import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tightenPermissions } from '../../core/app/tighten-permissions.ts';
import { startPatchbay } from '../helpers/start-patchbay.ts';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe.skipIf(process.platform === 'win32')('the data dir is private to the user at every start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-perms-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('tightens an existing data dir to 700 and its files to 600, says so in one line, and is quiet when nothing needed it', async () => {
    // A data dir from an older Patchbay, a backup restore or a umask of 022: readable by every user.
    const first = await startPatchbay({ dataDir });
    await first.stop();
    writeFileSync(join(dataDir, 'config.json'), '{}');
    writeFileSync(join(dataDir, 'server.json'), '{}');
    for (const file of ['patchbay.db', 'admin-token', 'server.json', 'config.json']) chmodSync(join(dataDir, file), 0o644);
    chmodSync(dataDir, 0o755);

    const second = await startPatchbay({ dataDir });
    try {
      expect(mode(dataDir)).toBe('700');
      for (const file of ['patchbay.db', 'admin-token', 'server.json', 'config.json', 'patchbay.db-wal', 'patchbay.db-shm']) expect([file, mode(join(dataDir, file))]).toEqual([file, '600']);
      const notices = second.logs.filter((line) => /permission/i.test(line));
      expect(notices).toHaveLength(1);
      expect(notices[0]).not.toContain('\n');
      expect(notices[0]).toContain(dataDir);
      expect(notices[0]).toMatch(/700/);
    } finally {
      await second.stop();
    }

    const third = await startPatchbay({ dataDir });
    await third.stop();
    expect(third.logs.filter((line) => /permission/i.test(line))).toEqual([]);
  });

  it('tightens the -wal and -shm files a crashed run left behind, and leaves other files alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'patchbay-perms-'));
    try {
      for (const file of ['patchbay.db-wal', 'patchbay.db-shm', 'notes.txt']) {
        writeFileSync(join(dir, file), '');
        chmodSync(join(dir, file), 0o664);
      }
      const notice = tightenPermissions(dir);
      expect([mode(join(dir, 'patchbay.db-wal')), mode(join(dir, 'patchbay.db-shm')), mode(join(dir, 'notes.txt'))]).toEqual(['600', '600', '664']);
      expect(notice).toContain('patchbay.db-wal');
      expect(tightenPermissions(dir)).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
