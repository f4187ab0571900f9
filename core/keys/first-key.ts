import type { KeySettings } from './key-store.ts';

/**
 * The first Patchbay key. On one machine (SQLite), `patchbay serve` makes it on the first start and
 * prints it to the terminal it runs in, which is the user's. A team's replica (PostgreSQL) runs as a
 * service whose output goes to a log that others read and keep: a secret there is a leaked key, and
 * an uncapped one. So a replica never makes a key; an admin makes the first with `patchbay keys
 * create`, which prints it once to that admin's terminal, and the replica's start says how.
 */
export function createsFirstKey(backend: 'sqlite' | 'postgres'): boolean {
  return backend === 'sqlite';
}

/** The start's line when a team has no key yet (null otherwise); `command` is how the CLI was invoked. */
export function firstKeyNotice(backend: 'sqlite' | 'postgres', keyCount: number, command = 'patchbay'): string | null {
  if (backend !== 'postgres' || keyCount > 0) return null;
  return (
    `No Patchbay key exists yet. Create the first in a terminal, where it is printed once (never in this log), with a cap: ` +
    `${command} keys create --name NAME --usd-cap 20 (on this machine, or anywhere with PATCHBAY_DATABASE_URL set; docs/team.md, "The first key").`
  );
}

/** What `keys create` adds after the key: a key made without any limit is said to be one, with how to limit or revoke it. */
export function unlimitedKeyAdvice(id: string, settings: KeySettings, command = 'patchbay'): string | null {
  const limited = [settings.expiresAt, settings.allowedModels, settings.monthlyTokenCap, settings.monthlyUsdCap, settings.rpmLimit, settings.tpmLimit].some((value) => value !== undefined && value !== null);
  if (limited) return null;
  return `It has no cap, rate limit or expiry: "${command} keys update ${id} --usd-cap USD" sets one, "${command} keys revoke ${id}" ends it.`;
}
