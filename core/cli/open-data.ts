import { join } from 'node:path';
import { resolveDataDir } from '../config/data-dir.ts';
import { loadConfigFile } from '../config/load-config.ts';
import { KeyStore } from '../keys/key-store.ts';
import { openDatabase, type PatchbayDatabase } from '../usage/open-database.ts';
import { UsageStore } from '../usage/usage-store.ts';

/** Opens the data dir for a CLI command that works on the database without starting the server. */
export function openData(values: { 'data-dir'?: string; config?: string }, env: NodeJS.ProcessEnv): { db: PatchbayDatabase; keys: KeyStore; usage: UsageStore; dataDir: string } {
  const dataDir = values['data-dir'] ?? resolveDataDir(env);
  // Validate the config even here, so a broken file is reported by every command.
  loadConfigFile(values.config ?? join(dataDir, 'config.json'), { required: values.config !== undefined });
  const db = openDatabase(dataDir);
  return { db, keys: new KeyStore(db), usage: new UsageStore(db), dataDir };
}
