import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { ConfigError, parseConfig, type PatchbayConfig } from './load-config.ts';

/**
 * Changes the user's config file (what the dashboard and CLI settings save into): reads it as it
 * is, applies the edit, validates the whole result (its schema, then `check`: what the schema
 * cannot see, such as names that must resolve), then replaces the file atomically. A file that
 * does not validate is never written.
 */
export function editConfigFile(path: string, edit: (raw: Record<string, unknown>) => void, check?: (next: PatchbayConfig) => void): PatchbayConfig {
  let raw: Record<string, unknown> = {};
  try {
    raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ConfigError(`Cannot update ${path}: ${(error as Error).message}. Fix the file first.`);
    }
  }
  edit(raw);
  const next = parseConfig(raw, path);
  check?.(next);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(raw, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
  return next;
}

/** The object at `raw[key]`, created if missing. */
export function section(raw: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = raw[key];
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  const created: Record<string, unknown> = {};
  raw[key] = created;
  return created;
}
