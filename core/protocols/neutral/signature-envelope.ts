/**
 * A reasoning signature belongs to the provider that made it: Anthropic checks its thinking
 * signatures, Gemini its thought signatures, OpenAI its encrypted reasoning, and each refuses the
 * whole request for one it did not make. When Patchbay hands a client a signature in a protocol
 * whose own upstream did not make it (a Gemini signature in an Anthropic thinking block, an
 * Anthropic one in a Responses reasoning item), it seals it in this envelope naming the provider:
 * `patchbay:<provider>:<signature>`, or `patchbay:<provider>:redacted:<data>` for encrypted
 * reasoning with no text (Anthropic's redacted_thinking). When the client replays the block,
 * Patchbay opens the envelope and gives the signature back to that provider only.
 *
 * A signature covers its reasoning text, byte for byte. Where the client keeps the signature apart
 * from the text (a Responses reasoning item's encrypted_content beside its content, which Codex
 * does not send back), the envelope carries the text too: `patchbay:<provider>:text:<base64url
 * text>:<signature>`, so the provider gets back exactly what it signed.
 *
 * A signature without the envelope is the ingress protocol's own upstream's (Anthropic's on
 * /v1/messages, OpenAI's on /v1/responses), passed through untouched: Patchbay never rewrites
 * what that upstream sent. Provider names hold no `:` (config's providerNameSchema), and base64
 * signatures hold no `:`, so the envelope reads back unambiguously.
 */
export const SIGNATURE_ENVELOPE_PREFIX = 'patchbay:';

const REDACTED = 'redacted:';
const TEXT = 'text:';

export interface SealedSignature {
  /** The provider (its name in config) that made the signature. */
  provider: string;
  /** The signature, or the redacted reasoning's data, as that provider sent it. */
  value: string;
  /** Encrypted reasoning without text (redacted), rather than a signature over shown reasoning. */
  redacted: boolean;
  /** The reasoning text the signature covers, when the envelope carries it. */
  text?: string;
}

/** Seals a signature for `provider`; with `text`, the reasoning it signed travels inside too. */
export function sealSignature(provider: string, value: string, redacted = false, text?: string): string {
  const carried = !redacted && text !== undefined ? `${TEXT}${Buffer.from(text, 'utf8').toString('base64url')}:` : '';
  return `${SIGNATURE_ENVELOPE_PREFIX}${provider}:${redacted ? REDACTED : ''}${carried}${value}`;
}

/** The envelope's content, or null when `text` is not one (a signature the caller's own upstream made). */
export function openSignature(text: string): SealedSignature | null {
  if (!text.startsWith(SIGNATURE_ENVELOPE_PREFIX)) return null;
  const rest = text.slice(SIGNATURE_ENVELOPE_PREFIX.length);
  const colon = rest.indexOf(':');
  if (colon <= 0) return null;
  const provider = rest.slice(0, colon);
  const value = rest.slice(colon + 1);
  if (value.startsWith(REDACTED)) return { provider, value: value.slice(REDACTED.length), redacted: true };
  if (value.startsWith(TEXT)) {
    const end = value.indexOf(':', TEXT.length);
    if (end > 0) return { provider, value: value.slice(end + 1), redacted: false, text: Buffer.from(value.slice(TEXT.length, end), 'base64url').toString('utf8') };
  }
  return { provider, value, redacted: false };
}
