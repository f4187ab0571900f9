import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header a client sends to GET /api/hello with a fresh random challenge (hex). */
export const CHALLENGE_HEADER = 'x-patchbay-challenge';

/** A challenge is 16 to 64 bytes as hex: enough to be fresh, short enough to bound the work. */
const CHALLENGE = /^[0-9a-f]{32,128}$/;

export function isChallenge(value: unknown): value is string {
  return typeof value === 'string' && CHALLENGE.test(value);
}

/**
 * What a Patchbay answers to a challenge: an HMAC of it with the admin token, bound to the port the
 * challenge reached. Only a holder of the admin token can compute it, and it reveals nothing of the
 * token; the port makes a relayed answer useless: another program on port P that forwards the
 * challenge to the real Patchbay on port Q gets the proof for Q, not for P. The domain string keeps
 * the proof from meaning anything anywhere else.
 */
export function serverProof(adminToken: string, challenge: string, port: number): string {
  return createHmac('sha256', adminToken).update(`patchbay server proof\u0000${challenge}\u0000${port}`).digest('hex');
}

/** Whether an answer is the proof for this token, challenge and port (compared in constant time). */
export function isServerProof(answer: unknown, adminToken: string, challenge: string, port: number): boolean {
  if (typeof answer !== 'string') return false;
  const expected = Buffer.from(serverProof(adminToken, challenge, port));
  const given = Buffer.from(answer);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
