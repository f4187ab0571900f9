/**
 * The known names closest to a mistyped one, best first (by edit distance): those within a few
 * edits, and those that contain it or that it contains. For a 404 that says what was probably meant.
 */
export function closeMatches(name: string, known: Iterable<string>, limit = 3): string[] {
  // Real model names are short; a long one is not a typo, and comparing it would cost every 404 real time.
  if (name.length > MAX_COMPARED_CHARS) return [];
  const wanted = name.toLowerCase();
  const scored: { name: string; score: number }[] = [];
  for (const candidate of new Set(known)) {
    const lower = candidate.toLowerCase();
    const tail = lower.slice(lower.lastIndexOf('/') + 1);
    // Sorted by edit distance; a name that contains the other (or is contained) qualifies however far apart.
    const score = Math.min(editDistance(wanted, lower), editDistance(wanted, tail));
    const contains = lower.includes(wanted) || wanted.includes(tail);
    if (!contains && score > Math.max(2, Math.floor(wanted.length / 4))) continue;
    scored.push({ name: candidate, score });
  }
  scored.sort((a, b) => a.score - b.score || a.name.length - b.name.length || a.name.localeCompare(b.name));
  return scored.slice(0, limit).map((s) => s.name);
}

const MAX_COMPARED_CHARS = 80;

/** Levenshtein distance, two rows; names are short. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 16) return Math.abs(a.length - b.length);
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}
