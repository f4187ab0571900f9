import type { Protocol } from '../config/config-schema.ts';
import { ANTHROPIC_VERSION } from './anthropic/anthropic-settings.ts';

/** How each protocol authenticates a request; the one place a provider secret becomes a header. */
export function authHeaders(protocol: Protocol, secret: string | undefined): Record<string, string> {
  if (protocol === 'anthropic') return secret ? { 'x-api-key': secret, 'anthropic-version': ANTHROPIC_VERSION } : { 'anthropic-version': ANTHROPIC_VERSION };
  if (!secret) return {};
  if (protocol === 'gemini') return { 'x-goog-api-key': secret };
  return { authorization: `Bearer ${secret}` };
}
