import type { PatchbayConfig } from './load-config.ts';
import { editConfigFile } from './write-config.ts';

/** What the dashboard, the CLI and the tray change while Patchbay runs. */
export interface LiveSettings {
  config: PatchbayConfig;
  /** Routing paused: /v1 answers 503 until resumed. */
  paused: boolean;
}

/**
 * Where the settings the management API changes are kept: config.json in the data dir (one
 * machine), or PostgreSQL (a team's replicas, which all apply a change made through any of them).
 */
export interface ConfigStore {
  readonly backend: 'file' | 'postgres';
  /** The settings in force at start (the file's, or the database's shared part over the file's own). */
  load(): Promise<LiveSettings>;
  /**
   * Applies `edit` to the stored config, validates the result (schema, then `check`), saves it and
   * returns it. A result that does not validate throws ConfigError and saves nothing.
   */
  edit(edit: (raw: Record<string, unknown>) => void, check?: (next: PatchbayConfig) => void): Promise<PatchbayConfig>;
  /** Saves the pause (PostgreSQL; on one machine the pause lives in memory only: a restart resumes). */
  setPaused(paused: boolean): Promise<void>;
  /** Told of a change saved by another process (another replica), already validated. */
  onChange: ((settings: LiveSettings) => void) | null;
  close(): Promise<void>;
}

/** config.json in the data dir, exactly as before: the desktop app and `npm start`. */
export class FileConfigStore implements ConfigStore {
  readonly backend = 'file';
  onChange: ConfigStore['onChange'] = null;
  private readonly path: string;
  private readonly initial: PatchbayConfig;

  /** `initial`: the file as loaded at start (createPatchbay reads it before the data dir is locked). */
  constructor(path: string, initial: PatchbayConfig) {
    this.path = path;
    this.initial = initial;
  }

  async load(): Promise<LiveSettings> {
    return { config: this.initial, paused: false };
  }

  async edit(edit: (raw: Record<string, unknown>) => void, check?: (next: PatchbayConfig) => void): Promise<PatchbayConfig> {
    return editConfigFile(this.path, edit, check);
  }

  async setPaused(): Promise<void> {}

  async close(): Promise<void> {}
}
