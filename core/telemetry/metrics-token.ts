import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The Prometheus endpoint's own credential: neither the admin token (which can change everything)
 * nor a /v1 key. It lives in the data dir, readable only by the user; Prometheus reads it from a
 * copy with `authorization: { credentials_file: ... }` (docs/observability.md).
 */
export function loadMetricsToken(dataDir: string): string {
  const path = metricsTokenPath(dataDir);
  try {
    const token = readFileSync(path, 'utf8').trim();
    if (token.length >= 32) return token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = `pbm-${randomBytes(32).toString('base64url')}`;
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return token;
}

export function metricsTokenPath(dataDir: string): string {
  return join(dataDir, 'metrics-token');
}
