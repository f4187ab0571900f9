import { readCatalogFile, writeCatalogFile } from './catalog-file.ts';
import type { CatalogData } from './catalog-schema.ts';

/**
 * Where an updated catalog is kept: the data dir on one machine, PostgreSQL for a team's
 * replicas (core/postgres/postgres-catalog-store.ts), where one replica's update reaches the
 * others through `onChange`.
 */
export interface CatalogStore {
  /** The updated catalog, or null when none was saved (the shipped one is used). */
  load(): Promise<CatalogData | null>;
  save(data: CatalogData): Promise<void>;
  /** Another process saved a catalog (a replica's update); set by the owner. */
  onChange: ((data: CatalogData) => void) | null;
}

/** The data dir's catalog.json; a file that does not read is reported once and not used. */
export class FileCatalogStore implements CatalogStore {
  onChange: CatalogStore['onChange'] = null;
  private readonly dataDir: string;
  private readonly log: (line: string) => void;

  constructor(dataDir: string, log: (line: string) => void) {
    this.dataDir = dataDir;
    this.log = log;
  }

  async load(): Promise<CatalogData | null> {
    const { data, problem } = await readCatalogFile(this.dataDir);
    if (problem) this.log(problem);
    return data;
  }

  save(data: CatalogData): Promise<void> {
    return writeCatalogFile(this.dataDir, data);
  }
}
