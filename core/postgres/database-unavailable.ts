import { ConfigError } from '../config/load-config.ts';
import { PatchbayError } from '../errors/patchbay-error.ts';

/**
 * A database error as the management API answers it: 503, saying what could not be done, never a
 * 500 and never "your session is gone" (errors Patchbay raised itself pass through unchanged).
 */
export function databaseUnavailable(error: unknown, what: string): unknown {
  if (error instanceof PatchbayError || error instanceof ConfigError || !(error instanceof Error)) return error;
  return new PatchbayError(`${what}: PostgreSQL does not answer (${error.message}). Try again in a moment.`, { status: 503, type: 'api_error', code: 'database_unavailable' });
}

/** PostgreSQL cannot be used at start (refused, unknown host, wrong password, no database): the CLI prints it without a stack. */
export class DatabaseStartError extends Error {}
