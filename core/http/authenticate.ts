import type { IncomingMessage } from 'node:http';
import { AuthenticationError } from '../errors/patchbay-error.ts';
import type { KeyBackend } from '../keys/key-backend.ts';
import type { ApiKeyRecord } from '../keys/key-store.ts';

const REASONS = {
  unknown: 'The Patchbay API key is not valid. Use a key printed by "patchbay keys create" (keys are shown once; create a new one if it is lost).',
  revoked: 'This Patchbay API key has been revoked. Create a new one with "patchbay keys create".',
  expired: 'This Patchbay API key has expired. Create a new one with "patchbay keys create", or extend its expiry.',
} as const;

/**
 * Checks the Patchbay key against Patchbay's own keys: `Authorization: Bearer <key>` (the openai
 * client, and Anthropic's `authToken` / ANTHROPIC_AUTH_TOKEN) or `x-api-key: <key>` (Anthropic's
 * `apiKey` / ANTHROPIC_API_KEY). Bearer wins when both are sent.
 */
export function authenticate(req: IncomingMessage, keys: Pick<KeyBackend, 'check'>): ApiKeyRecord {
  const header = req.headers.authorization;
  let secret: string;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new AuthenticationError('The Authorization header must be "Bearer <your Patchbay key>".');
    secret = match[1];
  } else if (typeof req.headers['x-api-key'] === 'string' && req.headers['x-api-key'].trim() !== '') {
    secret = req.headers['x-api-key'].trim();
  } else {
    throw new AuthenticationError('Missing API key: send your Patchbay key as "Authorization: Bearer <key>" or "x-api-key: <key>" (the openai and anthropic clients do this when you pass apiKey).');
  }
  const check = keys.check(secret);
  if (!check.ok) throw new AuthenticationError(REASONS[check.reason]);
  return check.record;
}
