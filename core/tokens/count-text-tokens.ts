/**
 * Counts o200k tokens of a text in bounded steps, so no single step is slow and a time budget can
 * stop it. Runs inside the counting thread (tokenize-worker.ts); pure given its count function.
 *
 * The tokenizer first splits text into pieces with o200k's pattern and merges bytes within each
 * piece; the merge is quadratic in the piece's length, which is what made a run of one character
 * (one piece) take minutes. So the text is walked piece by piece (the pattern is linear on such
 * runs) and counted in batches of whole pieces, which is exact: a batch ending at a piece boundary
 * splits the same way as the whole text (the only lookahead, `\s+(?!\S)`, matches the same span at
 * the end of a batch). A piece longer than LONG_PIECE characters is counted in LONG_PIECE slices:
 * cheap, but only an estimate, so the result then says `exact: false` and callers must not refuse
 * a request on it.
 */
export interface TextTokenCount {
  tokens: number;
  /** False when a long piece was counted in slices: `tokens` is then an estimate. */
  exact: boolean;
}

/** Longest piece merged whole: ~0.3 ms of tokenizer work at most. */
export const LONG_PIECE = 1024;
/** Characters counted per tokenizer call between deadline checks. */
const BATCH = 16 * 1024;

export function countTextTokens(text: string, splitPattern: RegExp, count: (text: string) => number, deadline: number, now: () => number = performance.now.bind(performance)): TextTokenCount | null {
  const pieces = new RegExp(splitPattern.source, splitPattern.flags.includes('g') ? splitPattern.flags : `${splitPattern.flags}g`);
  let tokens = 0;
  let exact = true;
  let batchStart = 0;
  let batchEnd = 0;
  for (let match = pieces.exec(text); match; match = pieces.exec(text)) {
    const piece = match[0];
    if (piece.length === 0) {
      pieces.lastIndex++;
      continue;
    }
    if (piece.length > LONG_PIECE) {
      if (batchEnd > batchStart) tokens += count(text.slice(batchStart, batchEnd));
      for (let at = 0; at < piece.length; ) {
        let end = Math.min(at + LONG_PIECE, piece.length);
        // Never cut a surrogate pair: half a character would count as replacement bytes.
        if (end < piece.length && isHighSurrogate(piece.charCodeAt(end - 1))) end--;
        tokens += count(piece.slice(at, end));
        at = end;
        if (now() > deadline) return null;
      }
      exact = false;
      batchStart = batchEnd = match.index + piece.length;
      continue;
    }
    batchEnd = match.index + piece.length;
    if (batchEnd - batchStart >= BATCH) {
      tokens += count(text.slice(batchStart, batchEnd));
      batchStart = batchEnd;
      if (now() > deadline) return null;
    }
  }
  // To the end of the text: characters the pattern skipped (none for o200k) are counted too.
  if (text.length > batchStart) tokens += count(text.slice(batchStart));
  return { tokens, exact };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
