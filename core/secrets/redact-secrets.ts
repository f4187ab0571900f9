/**
 * The one redaction of provider secrets from upstream text. Every ProviderError passes its fields
 * through `redactSecrets` as it is built (see provider-error.ts), so whatever an adapter copies
 * from an upstream answer - a JSON error body, a stream's error event, a header - is clean before
 * it can reach a client, a usage row, the content log or a log line.
 *
 * Why a process-wide list rather than the secret of one call: the error constructor is the one
 * place every upstream failure goes through, and it does not know the call. Redacting every
 * secret Patchbay holds (a handful) is a superset of redacting the call's own, costs nothing on
 * the success path, and a secret once known stays listed (an in-flight error may still quote a
 * key that was just replaced or deleted).
 */

const REDACTED = '[redacted]';

/** Each form a secret may take in upstream text, longest first so a longer form is never cut by a shorter one. */
let forms: string[] = [];
const known = new Set<string>();

/** Adds a secret to the redaction list (idempotent; cheap when already known). */
export function rememberSecret(secret: string | undefined): void {
  if (!secret || known.has(secret)) return;
  known.add(secret);
  const variants = new Set(forms);
  for (const form of formsOf(secret)) variants.add(form);
  forms = [...variants].sort((a, b) => b.length - a.length);
}

/**
 * The ways an upstream quotes a key: as sent (also inside `Bearer <key>`), URL-encoded (a query
 * parameter such as Gemini's `key=`, or a URL echoed in a message), and JSON-escaped once or
 * twice (a request body or header map quoted inside a JSON string, possibly nested again).
 */
function formsOf(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  return [secret, encodeURIComponent(secret), encodeURI(secret), json, JSON.stringify(json).slice(1, -1)];
}

/** The text with every known secret, in every form, replaced by `[redacted]`. */
export function redactSecrets(text: string): string;
export function redactSecrets(text: string | null | undefined): string | null | undefined;
export function redactSecrets(text: string | null | undefined): string | null | undefined {
  if (!text) return text;
  let out = text;
  for (const form of forms) if (out.includes(form)) out = out.replaceAll(form, REDACTED);
  return out;
}

/** A value copied from upstream (any JSON) with every string in it redacted. */
export function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [redactSecrets(k), redactValue(v)]));
  return value;
}
