/**
 * Bounds on o200k token counts from byte counts alone, so most decisions need no tokenizer.
 * Byte-level BPE never makes more tokens than UTF-8 bytes (upper bound), and no o200k token is
 * longer than MAX_TOKEN_BYTES bytes (its longest is a run of 128 spaces; test/tokens checks this
 * against the vocabulary gpt-tokenizer ships), so a text of B bytes is at least ceil(B / 128) tokens.
 * Special-token text counts as ordinary text (see count-text-tokens.ts), so the bound holds for it too.
 */
export const MAX_TOKEN_BYTES = 128;

export function minTokensForBytes(bytes: number): number {
  return Math.ceil(bytes / MAX_TOKEN_BYTES);
}
