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

/**
 * Prefixes providers put before the random part of a key. What follows is what makes a key a key:
 * it is what gets redacted, so an echo of the key without its prefix is caught too.
 */
const KNOWN_PREFIXES = ['sk-ant-api03-', 'sk-ant-admin01-', 'sk-ant-', 'sk-proj-', 'sk-svcacct-', 'sk-admin-', 'sk-or-v1-', 'sk-', 'gsk_', 'AIza', 'tgp_v1_', 'xai-', 'hf_', 'pplx-', 'pb-'];
/** Shorter than this, the part after a prefix is not distinctive enough to search on its own. */
const MIN_DISTINCTIVE = 12;

/** Secrets known so far (a handful), and the two expressions that find them in text. */
const known = new Set<string>();
/** Text forms, matched in any letter case and with any whitespace between characters. */
let textPattern: RegExp | null = null;
/** base64 forms: case matters, whitespace (line-wrapped base64) does not. */
let base64Pattern: RegExp | null = null;
/**
 * Secrets too short to search loosely (test keys, a local server's placeholder): only their exact
 * forms, as sent, URL-encoded and JSON-escaped, so that a key such as "x" does not eat every "78".
 */
let exactForms: string[] = [];

/** Adds a secret to the redaction list (idempotent; cheap when already known). */
export function rememberSecret(secret: string | undefined): void {
  if (!secret || known.has(secret)) return;
  known.add(secret);
  const text = new Set<string>();
  const base64 = new Set<string>();
  const exact = new Set<string>();
  for (const each of known) {
    if (each.length < MIN_DISTINCTIVE) {
      for (const form of textForms(each).slice(0, -1)) exact.add(form);
      continue;
    }
    for (const part of new Set([each, distinctivePart(each)])) {
      for (const form of textForms(part)) text.add(form);
      for (const form of base64Forms(part)) base64.add(form);
    }
  }
  textPattern = alternation(text, 'gi');
  base64Pattern = alternation(base64, 'g');
  exactForms = [...exact].sort((a, b) => b.length - a.length);
}

/** The secret without a well-known prefix (`sk-`, `sk-ant-api03-`, `gsk_`, `AIza` ...), when enough is left. */
export function distinctivePart(secret: string): string {
  const prefix = KNOWN_PREFIXES.find((p) => secret.startsWith(p)) ?? /^[A-Za-z]{1,8}[-_]/.exec(secret)?.[0] ?? '';
  const rest = secret.slice(prefix.length);
  return rest.length >= MIN_DISTINCTIVE ? rest : secret;
}

/**
 * The ways an upstream quotes a key in text: as sent (also inside `Bearer <key>`), URL-encoded (a
 * query parameter such as Gemini's `key=`, or a URL echoed in a message), JSON-escaped once or
 * twice (a body or header map quoted inside a JSON string, possibly nested again), and hex. The
 * pattern built from them ignores letter case and whitespace between characters (an upper-cased
 * log line, a key split into groups).
 */
function textForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  // Hex last: the exact forms of a short secret leave it out.
  return [secret, encodeURIComponent(secret), encodeURI(secret), json, JSON.stringify(json).slice(1, -1), Buffer.from(secret).toString('hex')];
}

/**
 * base64 and base64url of the secret wherever it sits in the encoded bytes (a Basic credential,
 * an encoded header map): for each of the three byte alignments, the encoding of the whole 3-byte
 * groups inside the secret, which any encoding of surrounding text must contain unchanged.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret);
  const forms: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const whole = bytes.subarray(skip, skip + Math.floor((bytes.length - skip) / 3) * 3);
    if (whole.length < 9) continue;
    forms.push(whole.toString('base64'), whole.toString('base64url'));
  }
  return forms;
}

/** One expression matching any of the forms, longest first, allowing whitespace between characters. */
function alternation(forms: Set<string>, flags: string): RegExp | null {
  if (forms.size === 0) return null;
  const sources = [...forms]
    .sort((a, b) => b.length - a.length)
    .map((form) => [...form].map((c) => c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')).join('\\s*'));
  return new RegExp(sources.join('|'), flags);
}

/** The text with every known secret, in every form, replaced by `[redacted]`. */
export function redactSecrets(text: string): string;
export function redactSecrets(text: string | null | undefined): string | null | undefined;
export function redactSecrets(text: string | null | undefined): string | null | undefined {
  if (!text) return text;
  let out = textPattern === null ? text : text.replace(textPattern, REDACTED);
  if (base64Pattern !== null) out = out.replace(base64Pattern, REDACTED);
  for (const form of exactForms) if (out.includes(form)) out = out.replaceAll(form, REDACTED);
  return out;
}

/** A value copied from upstream (any JSON) with every string in it redacted. */
export function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [redactSecrets(k), redactValue(v)]));
  return value;
}
