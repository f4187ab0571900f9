import type { IncomingMessage } from 'node:http';
import { AuthenticationError } from '../errors/patchbay-error.ts';
import type { ApiKeyRecord, KeyStore } from '../keys/key-store.ts';

const REASONS = {
  unknown: 'The Patchbay API key is not valid. Use a key printed by "patchbay keys create" (keys are shown once; create a new one if it is lost).',
  revoked: 'This Patchbay API key has been revoked. Create a new one with "patchbay keys create".',
  expired: 'This Patchbay API key has expired. Create a new one with "patchbay keys create", or extend its expiry.',
} as const;

/** Checks `Authorization: Bearer <key>` against Patchbay's own keys. */
export function authenticate(req: IncomingMessage, keys: KeyStore): ApiKeyRecord {
  const header = req.headers.authorization;
  if (!header) {
    throw new AuthenticationError('Missing API key: send your Patchbay key as "Authorization: Bearer <key>" (the openai client does this when you pass apiKey).');
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new AuthenticationError('The Authorization header must be "Bearer <your Patchbay key>".');
  const check = keys.check(match[1]);
  if (!check.ok) throw new AuthenticationError(REASONS[check.reason]);
  return check.record;
}
