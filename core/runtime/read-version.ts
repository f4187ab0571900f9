import { readFileSync } from 'node:fs';

/** Patchbay's version, from its package.json (two folders up, from the sources and from dist alike). */
export function readVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}
