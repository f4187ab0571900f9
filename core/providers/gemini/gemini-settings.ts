/**
 * What the Gemini API does differently, as data: limits, accepted schema formats, and which
 * models need what. Kept here so the mappers read as translation, not as a list of quirks.
 */
export const GEMINI_SETTINGS = {
  /** batchEmbedContents takes at most 100 requests per call (a 150-item batch answers 400). */
  embedBatchLimit: 100,
  /**
   * `format` values Gemini's Schema accepts per type; any other format is a 400
   * ("only 'enum' and 'date-time' are supported for STRING type"), so the adapter moves it
   * into the description instead of losing the hint.
   */
  schemaFormats: {
    STRING: ['enum', 'date-time'],
    NUMBER: ['float', 'double'],
    INTEGER: ['int32', 'int64'],
  } as Record<string, readonly string[] | undefined>,
  /**
   * Gemini 3 rejects a replayed functionCall part without its thoughtSignature. OpenAI history
   * cannot carry signatures, so replayed calls get the documented skip value instead
   * (ai.google.dev/gemini-api/docs/thought-signatures); it may cost some answer quality.
   */
  thoughtSignatureSkip: 'skip_thought_signature_validator',
  /** Function names: letters, digits, `_ . : -`, at most 128, starting with a letter or underscore. */
  functionNamePattern: /^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/,
} as const;

/** Models that validate thought signatures on replayed function calls (Gemini 3 and later). */
export function needsThoughtSignature(model: string): boolean {
  const match = /^gemini-(\d+)/.exec(model);
  return match !== null && Number(match[1]) >= 3;
}
