import type { NeutralRequest } from '../protocols/neutral/neutral-request.ts';
import type { UpstreamCall } from './provider-adapter.ts';

/**
 * The request with only the replayed reasoning this call's provider signed: a signature belongs
 * to the provider that made it, and Anthropic, Gemini and OpenAI each refuse a whole request for
 * one they did not make. Signed reasoning of other providers is left out and said so
 * (X-Patchbay-Dropped: `reasoning signed by google (2)`); reasoning without a signature (the
 * reasoning text some OpenAI-compatible upstreams show) is left out without a word, since no
 * upstream takes it back and the one that wrote it did not ask for it.
 */
export function keepOwnReasoning(request: NeutralRequest, call: Pick<UpstreamCall, 'provider' | 'adjustments'>): NeutralRequest {
  const own = call.provider.name;
  const leftOut: (string | undefined)[] = [];
  let changed = false;
  const messages = request.messages.map((message) => {
    const parts = message.parts.filter((part) => {
      if (part.type !== 'reasoning' && part.type !== 'redacted-reasoning') return true;
      const signed = part.type === 'redacted-reasoning' || part.signature !== undefined;
      if (signed && part.signedBy === own) return true;
      if (signed) leftOut.push(part.signedBy);
      return false;
    });
    if (parts.length === message.parts.length) return message;
    changed = true;
    return { ...message, parts };
  });
  if (!changed) return request;
  for (const entry of describeLeftOutReasoning(leftOut)) call.adjustments?.drop(entry);
  return { ...request, messages };
}

/**
 * What X-Patchbay-Dropped says of replayed signed reasoning left out, one entry per provider that
 * signed it (`undefined`: a signature Patchbay did not seal, the caller's own protocol's upstream's).
 */
export function describeLeftOutReasoning(signers: readonly (string | undefined)[]): string[] {
  const counts = new Map<string, number>();
  for (const signer of signers) {
    const who = signer === undefined ? 'elsewhere' : `by ${signer}`;
    counts.set(who, (counts.get(who) ?? 0) + 1);
  }
  return [...counts].map(([who, count]) => `reasoning signed ${who} (${count})`);
}
