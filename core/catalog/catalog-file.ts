import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { catalogDataSchema, type CatalogData } from './catalog-schema.ts';
import { formatCatalogJson } from './format-catalog-json.ts';

/** The updated catalog in the data dir (`patchbay models update` writes it; every start reads it). */
export const CATALOG_FILE = 'catalog.json';

/**
 * The catalog an update wrote to the data dir, or null when there is none. One that no longer
 * reads (hand-edited, written by a newer Patchbay) is not used: the shipped one is, and `problem`
 * says why in one line.
 */
export async function readCatalogFile(dataDir: string): Promise<{ data: CatalogData | null; problem?: string }> {
  let text: string;
  try {
    text = await readFile(join(dataDir, CATALOG_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { data: null };
    return { data: null, problem: `cannot read ${join(dataDir, CATALOG_FILE)}: ${(error as Error).message}` };
  }
  try {
    return { data: catalogDataSchema.parse(JSON.parse(text)) };
  } catch (error) {
    return { data: null, problem: `${join(dataDir, CATALOG_FILE)} is not a catalog this Patchbay reads (${(error as Error).message.split('\n')[0]}); using the shipped one` };
  }
}

/** Writes atomically: a reader (another process, a replica on the same disk) sees the old file or the new one, never half. */
export async function writeCatalogFile(dataDir: string, data: CatalogData): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, CATALOG_FILE);
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFile(temporary, formatCatalogJson(data), { mode: 0o600 });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * The catalog to use: the updated one, unless the shipped one is newer (Patchbay was upgraded
 * since the update): prices of a later day win.
 */
export function chooseCatalog(shipped: CatalogData, updated: CatalogData | null): CatalogData {
  return updated && updated.pricesAsOf >= shipped.pricesAsOf ? updated : shipped;
}
