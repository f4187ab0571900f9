import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPatchbay } from '../../core/app/create-patchbay.ts';

describe('a start that cannot listen', () => {
  it('releases the database and the usage writer, so starting again on another port works and closes cleanly', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as { port: number }).port;
    const dataDir = mkdtempSync(join(tmpdir(), 'patchbay-start-failure-'));
    const options = { dataDir, host: '127.0.0.1', env: {}, keychainService: `patchbay-test-${process.pid}`, log: () => undefined };
    try {
      const failed = await createPatchbay({ ...options, port: taken }).then(() => null, (e: NodeJS.ErrnoException) => e.code);
      expect(failed).toBe('EADDRINUSE');
      // The failed start closed its database: a second start gets its own, and a clean close finishes.
      const started = await createPatchbay({ ...options, port: 0 });
      expect(started.port).not.toBe(taken);
      await started.close();
      const workers = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().filter((h) => (h as { constructor: { name: string } }).constructor.name === 'Worker');
      expect(workers).toEqual([]);
    } finally {
      blocker.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
