import { randomBytes } from 'node:crypto';
import { CHALLENGE_HEADER, isServerProof } from '../secrets/server-proof.ts';

/** A server answered at a data dir's address without proving it holds that data dir's admin token. */
export class ServerNotProvenError extends Error {
  constructor(url: string, dataDir: string) {
    super(
      `The server at ${url} did not prove it is the Patchbay of ${dataDir} (it does not hold that data dir's admin token), so nothing was sent to it. ` +
        `Another program may listen on that address: stop it, or start Patchbay again ("patchbay serve --data-dir ${dataDir}").`,
    );
    this.name = 'ServerNotProvenError';
  }
}

/**
 * Resolves when the server at `url` proves it holds the admin token (server-proof.ts), before the
 * token or anything else is sent to it: the address comes from a file (server.json) that may be
 * stale, and another program may now listen there. Rejects with ServerNotProvenError when something
 * answers without the proof, and with fetch's own error when nothing answers (a stale server.json).
 */
export async function verifyServer(url: string, adminToken: string, dataDir: string, timeoutMs: number): Promise<void> {
  const challenge = randomBytes(32).toString('hex');
  const parsed = new URL(url);
  const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  const response = await fetch(`${url}/api/hello`, { headers: { [CHALLENGE_HEADER]: challenge }, signal: AbortSignal.timeout(timeoutMs) });
  let proof: unknown;
  try {
    proof = ((await response.json()) as { proof?: unknown }).proof;
  } catch {
    proof = undefined;
  }
  if (!response.ok || !isServerProof(proof, adminToken, challenge, port)) throw new ServerNotProvenError(url, dataDir);
}
