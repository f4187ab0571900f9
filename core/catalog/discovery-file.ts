import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { ProviderModel } from './discovered-endpoints.ts';

/** The providers' own model lists as last read, so a restart (or a provider down at start) keeps them. */
export const DISCOVERY_FILE = 'discovered-models.json';

const discoverySchema = z.record(
  z.string(),
  z.object({
    fetchedAt: z.string(),
    models: z.array(z.object({ id: z.string().min(1), kind: z.enum(['chat', 'embeddings', 'other']).optional(), contextWindow: z.number().int().positive().optional(), maxOutput: z.number().int().positive().optional() })),
  }),
);
export type DiscoveryCache = z.infer<typeof discoverySchema>;

/** The cached lists; an unreadable file counts as none (discovery writes it again). */
export async function readDiscoveryFile(dataDir: string): Promise<DiscoveryCache> {
  try {
    return discoverySchema.parse(JSON.parse(await readFile(join(dataDir, DISCOVERY_FILE), 'utf8')));
  } catch {
    return {};
  }
}

export async function writeDiscoveryFile(dataDir: string, cache: DiscoveryCache): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, DISCOVERY_FILE);
  const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(cache)}\n`, { mode: 0o600 });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

export function discoveredModels(cache: DiscoveryCache): Map<string, ProviderModel[]> {
  return new Map(Object.entries(cache).map(([provider, entry]) => [provider, entry.models]));
}
