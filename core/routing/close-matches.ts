/**
 * The known names closest to a mistyped one, best first: those that contain it or that it
 * contains, then those within a small edit distance. For a 404 that says what was probably meant.
 */
export function closeMatches(name: string, known: Iterable<string>, limit = 3): string[] {
  const wanted = name.toLowerCase();
  const scored: { name: string; score: number }[] = [];
  for (const candidate of new Set(known)) {
    const lower = candidate.toLowerCase();
    const tail = lower.slice(lower.lastIndexOf('/') + 1);
    let score: number;
    if (lower === wanted || tail === wanted) score = 0;
    else if (lower.includes(wanted) || wanted.includes(tail)) score = 1;
    else {
      const distance = Math.min(editDistance(wanted, lower), editDistance(wanted, tail));
      if (distance > Math.max(2, Math.floor(wanted.length / 4))) continue;
      score = 1 + distance;
    }
    scored.push({ name: candidate, score });
  }
  scored.sort((a, b) => a.score - b.score || a.name.length - b.name.length || a.name.localeCompare(b.name));
  return scored.slice(0, limit).map((s) => s.name);
}

/** Levenshtein distance, two rows; names are short. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 8) return Number.POSITIVE_INFINITY;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}
