/** Longer header values are cut: Node's HTTP client refuses a response whose headers pass 16 KB. */
export const MAX_HEADER_VALUE_CHARS = 1024;

/** Printable ASCII but `%`, which is the escape character below. Tested first: the common case costs one regex test. */
const PLAIN = /^[\x20-\x24\x26-\x7e]*$/;
const UNSAFE = /[^\x20-\x24\x26-\x7e]/gu;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Makes any text a legal, bounded header value. Request-derived text (a pass-through model id in
 * the route reason, an upstream's message) may hold CR/LF, NUL or characters outside Latin-1, on
 * which Node's setHeader throws ERR_INVALID_CHAR (and CR/LF would split headers): such
 * characters are percent-encoded as UTF-8, so the value reads like a URL and decodes back to the
 * original with decodeURIComponent, and the result is cut to `max` characters.
 */
export function headerValue(text: string, max = MAX_HEADER_VALUE_CHARS): string {
  if (text.length <= max && PLAIN.test(text)) return text;
  // Lone surrogates (which encodeURIComponent refuses) become U+FFFD first.
  const encoded = text.replace(LONE_SURROGATE, '\ufffd').replace(UNSAFE, (char: string) => encodeURIComponent(char));
  if (encoded.length <= max) return encoded;
  let cut = max - 3;
  // Never end inside an escape, nor between the escapes of one character's UTF-8 bytes.
  const percent = encoded.lastIndexOf('%', cut - 1);
  if (percent !== -1 && percent > cut - 3) cut = percent;
  while (cut >= 3 && encoded[cut] === '%' && isContinuationByte(encoded, cut)) cut -= 3;
  return `${encoded.slice(0, cut)}...`;
}

/** `%80` to `%BF`: the second and later bytes of a UTF-8 sequence. */
function isContinuationByte(encoded: string, at: number): boolean {
  const byte = Number.parseInt(encoded.slice(at + 1, at + 3), 16);
  return byte >= 0x80 && byte <= 0xbf;
}
