import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileConfigStore } from '../../core/config/config-store.ts';
import { loadConfigFile } from '../../core/config/load-config.ts';
import { DashboardSessions } from '../../core/http/dashboard-sessions.ts';
import { runConfigStoreContract, runSignInContract } from './config-store-contract.ts';

runConfigStoreContract('config.json', async (file) => {
  const dir = mkdtempSync(join(tmpdir(), 'patchbay-config-store-'));
  const path = join(dir, 'config.json');
  writeFileSync(path, JSON.stringify(file));
  // A restart reads the file again: what was saved is what the next store loads.
  const reopen = async () => new FileConfigStore(path, loadConfigFile(path, { required: true }));
  return { store: await reopen(), reopen, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});

runSignInContract('memory', async ({ now }) => ({ signIn: new DashboardSessions({ now }), cleanup: async () => undefined }));
