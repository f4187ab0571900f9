import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The management API's own credential, separate from every /v1 key. It lives in the data dir,
 * readable only by the user (like a Jupyter token): the CLI and the desktop app read it there.
 */
export function loadAdminToken(dataDir: string): string {
  const path = adminTokenPath(dataDir);
  try {
    const token = readFileSync(path, 'utf8').trim();
    if (token.length >= 32) return token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = `pba-${randomBytes(32).toString('base64url')}`;
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return token;
}

export function adminTokenPath(dataDir: string): string {
  return join(dataDir, 'admin-token');
}

export function tokensEqual(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
