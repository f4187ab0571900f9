import { chmodSync, lstatSync } from 'node:fs';
import { join } from 'node:path';

/** Everything Patchbay keeps in its data dir: key hashes, usage, the admin token, provider settings, the headless keyring's password (scripts/ensure-setup.js). */
const PRIVATE_FILES = ['patchbay.db', 'patchbay.db-wal', 'patchbay.db-shm', 'admin-token', 'server.json', 'config.json', 'keyring-password'];

/**
 * Makes the data dir 700 and Patchbay's files in it 600. mkdir and writeFile apply a mode only when
 * they create, so a dir from an older version, a restored backup or a 022 umask stays readable by
 * every user of the machine until something tightens it. POSIX only: Windows ignores these modes
 * (%APPDATA% is private to the user already). Returns the one-line notice to print, or null.
 */
export function tightenPermissions(dataDir: string, platform = process.platform): string | null {
  if (platform === 'win32') return null;
  const tightened: string[] = [];
  const tighten = (path: string, label: string, wanted: number) => {
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      return; // not there (yet): whoever creates it gives it the private mode
    }
    // A symlink's own mode means nothing; never chmod what it points at.
    if (stat.isSymbolicLink() || (stat.mode & 0o777) === wanted) return;
    chmodSync(path, wanted);
    tightened.push(`${label} (was ${(stat.mode & 0o777).toString(8)})`);
  };
  tighten(dataDir, 'the folder', 0o700);
  for (const file of PRIVATE_FILES) tighten(join(dataDir, file), file, 0o600);
  if (tightened.length === 0) return null;
  return `Tightened permissions in ${dataDir} so only you can read it (folder 700, files 600): ${tightened.join(', ')}.`;
}
