import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The config file a command reads or writes, and whether it must exist. */
export interface ConfigLocation {
  path: string;
  required: boolean;
}

/**
 * The config file of a data dir as its server sees it: --config when given, else the file the
 * Patchbay running on the data dir reads (`serve --config FILE` writes it into server.json), else
 * DATA_DIR/config.json. So `patchbay agents set` writes the profile where the server and the
 * launcher read it, whatever file the server was started with.
 */
export function findConfigPath(values: { config?: string }, dataDir: string): ConfigLocation {
  if (values.config) return { path: values.config, required: true };
  const served = servedConfigPath(dataDir);
  return { path: served ?? join(dataDir, 'config.json'), required: false };
}

function servedConfigPath(dataDir: string): string | null {
  const file = join(dataDir, 'server.json');
  if (!existsSync(file)) return null;
  try {
    const { config } = JSON.parse(readFileSync(file, 'utf8')) as { config?: unknown };
    return typeof config === 'string' && config ? config : null;
  } catch {
    return null;
  }
}
