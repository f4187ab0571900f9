import type { IncomingMessage } from 'node:http';
import { AuthenticationError } from '../errors/patchbay-error.ts';
import type { KeyBackend } from '../keys/key-backend.ts';
import type { ApiKeyRecord } from '../keys/key-store.ts';
import { markAuthenticated } from './limit-connections.ts';

// Said to whoever sent the key, who may not manage Patchbay (a team member): what they can do, and
// what the admin does (on a laptop that is the same person).
const ADMIN = 'whoever manages this Patchbay creates keys on the dashboard\'s Keys page or with "patchbay keys create"';
const REASONS = {
  unknown: `The Patchbay API key is not valid: check it was copied whole (keys are shown once). For a new one: ${ADMIN}.`,
  revoked: `This Patchbay API key has been revoked. Ask for a new one: ${ADMIN}.`,
  expired: `This Patchbay API key has expired. Ask for a new one, or for its expiry to be extended: ${ADMIN}.`,
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
  markAuthenticated(req.socket);
  return check.record;
}
