import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { previousCatalogSchema, type CatalogInputs } from './build-catalog.ts';
import { catalogSourceSchema, type CatalogSource } from './catalog-schema.ts';
import { modelsDevSchema } from './models-dev-schema.ts';
import { priceTableSchema } from './price-table-schema.ts';

/** The folder of pinned snapshots the shipped catalog is built from (kept in the repository, shipped beside the catalog). */
export const SOURCES_DIR = new URL('./sources/', import.meta.url);

const manifestEntrySchema = z.looseObject({ ...catalogSourceSchema.shape, file: z.string(), sha256: z.string().optional(), remote: z.string().optional() });
export const sourcesManifestSchema = z.strictObject({ genaiPrices: manifestEntrySchema, modelsDev: manifestEntrySchema, previous: manifestEntrySchema });
export type SourcesManifest = z.infer<typeof sourcesManifestSchema>;

export function toSource(entry: z.infer<typeof manifestEntrySchema>): CatalogSource {
  const { id, name, version, date, url, license } = entry;
  return { id, name, version, date, url, license };
}

async function readJson(dir: URL, file: string): Promise<unknown> {
  return JSON.parse(await readFile(new URL(file, dir), 'utf8'));
}

export async function readSourcesManifest(dir: URL = SOURCES_DIR): Promise<SourcesManifest> {
  return sourcesManifestSchema.parse(await readJson(dir, 'sources.json'));
}

/** The pinned snapshots as the builder's inputs, for a build on `day`. */
export async function readCatalogSources(day: string, dir: URL = SOURCES_DIR): Promise<CatalogInputs> {
  const manifest = await readSourcesManifest(dir);
  return {
    table: priceTableSchema.parse(await readJson(dir, manifest.genaiPrices.file)),
    tableSource: toSource(manifest.genaiPrices),
    modelsDev: modelsDevSchema.parse(await readJson(dir, manifest.modelsDev.file)),
    modelsDevSource: toSource(manifest.modelsDev),
    previous: previousCatalogSchema.parse(await readJson(dir, manifest.previous.file)),
    previousSource: toSource(manifest.previous),
    day,
  };
}
