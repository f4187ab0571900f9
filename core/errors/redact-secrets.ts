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
/**
 * For scanning answers as they pass (scan-secrets.ts): which latin1 characters the distinctive
 * secrets' forms are made of, and the longest form. Only secrets of MIN_DISTINCTIVE characters or
 * more: a short placeholder key ("ollama") would otherwise be cut out of every answer naming it.
 */
let formCharacters = new Uint8Array(256);
let longestForm = 0;
/**
 * The quick scan's index: a bitset over hashes of every four-character piece (lower-cased) of
 * every distinctive form. An answer is probed every GRAM_STEP bytes (four bytes read at once):
 * every run of GRAM_STEP + 3 characters of a form lands one whole probe, which hits the index;
 * only where a probe hits do the patterns run, around it. An answer without a secret costs a probe
 * per 8 bytes instead of the case-insensitive, whitespace-tolerant alternation at every position
 * (about 20 MB/s with five keys known, bench/secret-scan.ts). The price: in an answer a secret is
 * caught as sent, in any letter case and encoding, and split by whitespace into pieces of 11
 * characters or more, not into shorter ones (error messages, which redactSecrets scans whole, are).
 */
const GRAM_BITS = 1 << 20;
let grams = new Int32Array(GRAM_BITS / 32);
/** A second index with another hash (a Bloom filter of two): a probe that hits both is rarely a false one. */
let gramsAgain = new Int32Array(GRAM_BITS / 32);
const GRAM_STEP = 8;
let gramStep = 0;
/** Adds a secret to the redaction list (idempotent; cheap when already known). */
export function rememberSecret(secret: string | undefined): void {
  if (!secret || known.has(secret)) return;
  known.add(secret);
  const text = new Set<string>();
  const base64 = new Set<string>();
  const exact = new Set<string>();
  // The quick scan's index takes the distinctive parts' forms only: every form of a whole secret
  // holds its distinctive part's form, and a prefix such as "sk-proj-" would hit on every "project".
  const indexed: string[] = [];
  for (const each of known) {
    if (each.length < MIN_DISTINCTIVE) {
      for (const form of textForms(each).slice(0, -1)) exact.add(form);
      continue;
    }
    for (const part of new Set([each, distinctivePart(each)])) {
      for (const form of textForms(part)) text.add(form);
      for (const form of base64Forms(part)) base64.add(form);
    }
    const part = distinctivePart(each);
    indexed.push(...textForms(part), ...base64Forms(part));
  }
  textPattern = alternation(text, 'gi');
  base64Pattern = alternation(base64, 'g');
  exactForms = [...exact].sort((a, b) => b.length - a.length);
  formCharacters = new Uint8Array(256);
  grams = new Int32Array(GRAM_BITS / 32);
  gramsAgain = new Int32Array(GRAM_BITS / 32);
  longestForm = 0;
  let shortestForm = Infinity;
  for (const form of [...text, ...base64]) {
    longestForm = Math.max(longestForm, form.length);
    for (const c of form) for (const each of new Set([c, c.toLowerCase(), c.toUpperCase()])) if (each.charCodeAt(0) < 256) formCharacters[each.charCodeAt(0)] = 1;
  }
  for (const form of indexed) {
    shortestForm = Math.min(shortestForm, form.length);
    const lower = Buffer.from(form.toLowerCase(), 'latin1');
    for (let at = 0; at + 4 <= lower.length; at++) {
      const piece = lower.readInt32LE(at);
      const gram = gramHash(piece);
      grams[gram >>> 5] |= 1 << (gram & 31);
      const again = gramHashAgain(piece);
      gramsAgain[again >>> 5] |= 1 << (again & 31);
    }
  }
  gramStep = Number.isFinite(shortestForm) ? Math.max(1, Math.min(GRAM_STEP, shortestForm - 3)) : 0;
}

/** A four-byte piece (little-endian, lower-cased) to its bit in the index, and in the second one. */
function gramHash(piece: number): number {
  return Math.imul(piece, -1640531535) >>> 12;
}

function gramHashAgain(piece: number): number {
  return Math.imul(piece ^ (piece >>> 15), 0x2c1b3c6d) >>> 12;
}

/** Four bytes' ASCII letters lower-cased at once (bytes above 0x7f left alone). */
function lowerGram(piece: number): number {
  // A byte b < 0x80 is A-Z when b + 0x3f carries into bit 7 (b >= 0x41) and b + 0x25 does not (b <= 0x5a).
  const ascii = ~piece & 0x80808080;
  const low = piece & 0x7f7f7f7f;
  const aboveA = ((low + 0x3f3f3f3f) & 0x80808080) & ascii;
  const aboveZ = ((low + 0x25252525) & 0x80808080) & ascii;
  return piece | ((aboveA & ~aboveZ) >>> 2);
}

/** Whether any secret long enough to search for in answers is known (none: nothing to scan). */
export function scanningForSecrets(): boolean {
  return longestForm > 0;
}

/** The longest form of a distinctive secret, in characters (what a scan must hold back, whitespace aside). */
export function longestSecretForm(): number {
  return longestForm;
}

/** Whether a latin1 character code can be part of a distinctive secret's form (whitespace aside). */
export function isSecretFormCharacter(code: number): boolean {
  return formCharacters[code] === 1;
}

/**
 * Where distinctive secrets occur in bytes read as latin1 (one character per byte; the forms are
 * ASCII), in any of their forms, as redactSecrets finds them (short secrets' exact forms aside):
 * sorted, not overlapping, end exclusive. A probe every `gramStep` bytes; the patterns run only
 * around a probe that hits the index.
 */
export function findSecrets(data: Buffer): [number, number][] {
  const spans: [number, number][] = [];
  if (gramStep === 0 || data.length < 4) return spans;
  let text: string | null = null;
  let covered = 0;
  const last = data.length - 4;
  // The last probe sits at the end, so a form ending there is probed too.
  for (let at = 0; ; at = Math.min(at + gramStep, last)) {
    const piece = lowerGram(data[at] | (data[at + 1] << 8) | (data[at + 2] << 16) | (data[at + 3] << 24));
    const gram = gramHash(piece);
    if ((grams[gram >>> 5] & (1 << (gram & 31))) !== 0 && at + 4 > covered && hitsAgain(piece)) {
      text ??= data.toString('latin1');
      covered = matchAround(text, at, covered, spans);
    }
    if (at === last) break;
  }
  return spans;
}

function hitsAgain(piece: number): boolean {
  const again = gramHashAgain(piece);
  return (gramsAgain[again >>> 5] & (1 << (again & 31))) !== 0;
}

/**
 * The match of the patterns that contains the probe at `at` (looked for from `covered`, where the
 * previous one ended), added to `spans`; returns where it ends (`covered` when there is none).
 */
function matchAround(text: string, at: number, covered: number, spans: [number, number][]): number {
  const from = Math.max(covered, at - 2 * longestForm);
  let best: [number, number] | null = null;
  for (const pattern of [textPattern, base64Pattern]) {
    if (pattern === null) continue;
    pattern.lastIndex = from;
    for (let match = pattern.exec(text); match !== null && match.index <= at; match = pattern.exec(text)) {
      const end = match.index + match[0].length;
      if (end > at && (best === null || match.index < best[0] || (match.index === best[0] && end > best[1]))) best = [match.index, end];
      if (match[0].length === 0) pattern.lastIndex++;
    }
  }
  if (best === null) return covered;
  spans.push(best);
  return best[1];
}

export { REDACTED };

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
