import { ServerNotProvenError, verifyServer } from '../management/verify-server.ts';
import { UsageError } from './usage-error.ts';

/**
 * Checks that the server at the data dir's address holds the data dir's admin token before anything
 * (the token included) is sent to it: a UsageError when something else answers there; fetch's
 * error, as before, when nothing answers (a stale server.json).
 */
export async function provenServer(url: string, adminToken: string, dataDir: string): Promise<void> {
  try {
    await verifyServer(url, adminToken, dataDir, 10_000);
  } catch (error) {
    throw error instanceof ServerNotProvenError ? new UsageError(error.message) : error;
  }
}
