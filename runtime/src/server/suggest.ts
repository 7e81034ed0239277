/**
 * "Did you mean": the registered name closest to one a request named that does not exist, for the error message.
 * Case-insensitive, by Damerau-Levenshtein distance (optimal string alignment: an adjacent transposition is one edit),
 * at most 2 edits and fewer than half the name's length. The work is bounded whatever the input: a name longer than
 * MAX_COMPARED characters is never compared, a candidate whose length differs by more than 2 is skipped, and the
 * distance is computed in a band of width 5 (linear in the length).
 */

/** Longer names are not compared (tool names are at most 128 characters; a URI a person typed, a few hundred). */
export const MAX_COMPARED = 512;
const MAX_EDITS = 2;

/** `a` and `b`'s distance (case-insensitive), or undefined when it is over `max` or either is over MAX_COMPARED long. */
export function editDistance(a: string, b: string, max = MAX_EDITS): number | undefined {
  if (a.length > MAX_COMPARED || b.length > MAX_COMPARED || Math.abs(a.length - b.length) > max) return undefined;
  a = a.toLowerCase();
  b = b.toLowerCase();
  if (a === b) return 0;
  const n = b.length;
  // Three rows of the DP table; cells outside the band |i - j| <= max stay over max.
  const over = max + 1;
  let prev2 = new Array<number>(n + 1).fill(over);
  let prev = Array.from({ length: n + 1 }, (_, j) => (j <= max ? j : over));
  let row = new Array<number>(n + 1).fill(over);
  for (let i = 1; i <= a.length; i++) {
    const lo = Math.max(1, i - max);
    const hi = Math.min(n, i + max);
    // Only the band is written: the cell left of it and the one right of it (read by the next row) are over max.
    row[lo - 1] = lo === 1 && i <= max ? i : over;
    if (hi < n) row[hi + 1] = over;
    let best = row[lo - 1];
    for (let j = lo; j <= hi; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2] + 1);
      row[j] = Math.min(d, over);
      if (row[j] < best) best = row[j];
    }
    if (best > max) return undefined;
    [prev2, prev, row] = [prev, row, prev2];
  }
  return prev[n] <= max ? prev[n] : undefined;
}

/** The candidate closest to `name` (the first of equals, in the order given), or undefined when none is close. */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  if (typeof name !== "string" || name.length === 0) return undefined;
  // One edit in a name of 1 or 2 characters is another name altogether; a case difference still counts.
  const max = Math.min(MAX_EDITS, Math.ceil(name.length / 2) - 1);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    if (c === name) continue;
    const d = editDistance(name, c, max);
    if (d !== undefined && d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}

/** `message` with `; did you mean "x"?` when a candidate is close to `name`. */
export function withSuggestion(message: string, name: string, candidates: Iterable<string>): string {
  const near = closest(name, candidates);
  return near === undefined ? message : `${message}; did you mean ${JSON.stringify(near)}?`;
}
