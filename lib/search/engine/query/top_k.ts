/** The first documents of a ranking, without sorting them all (rank.ts). */

/** Documents sorted by insertion at most (a sort's comparator calls cost more below). */
const SMALL = 128;

/**
 * The `k` best of the first `n` documents of `ids` (left as they are), best first: more query
 * words, then a higher score; ties keep the order of `ids`, exactly as a stable sort of them
 * all would (only a few are kept in order).
 */
export function topK(
  ids: ArrayLike<number>,
  k: number,
  acc: { score: ArrayLike<number>; words: ArrayLike<number> },
  n = ids.length,
): number[] {
  const { score, words } = acc;
  const better = (a: number, b: number) => words[b] - words[a] || score[b] - score[a];
  if (k * 4 >= n && n > SMALL) {
    const all: number[] = [];
    for (let i = 0; i < n; i++) all.push(ids[i]);
    return all.sort(better).slice(0, k);
  }
  if (k * 4 >= n) {
    // A few: each put after every one as good as it (stable), its place found by halving.
    const all: number[] = [];
    for (let i = 0; i < n; i++) {
      const id = ids[i], w = words[id], s = score[id];
      let lo = 0, hi = all.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1, m = all[mid];
        if (words[m] > w || (words[m] === w && score[m] >= s)) lo = mid + 1;
        else hi = mid;
      }
      all.push(id);
      for (let j = all.length - 1; j > lo; j--) all[j] = all[j - 1];
      all[lo] = id;
    }
    if (all.length > k) all.length = k;
    return all;
  }
  if (k <= 0) return [];
  const top: number[] = [];
  // The k-th best so far: most documents are no better, told by two reads.
  let lastWords = -1, lastScore = 0;
  for (let j = 0; j < n; j++) {
    const id = ids[j], w = words[id];
    if (w < lastWords || (w === lastWords && score[id] <= lastScore)) continue;
    // Shifted in place: the worst goes when k are kept.
    let i = top.length === k ? k - 1 : top.length;
    while (i > 0 && better(id, top[i - 1]) < 0) top[i] = top[i - 1], i--;
    top[i] = id;
    if (top.length === k) [lastWords, lastScore] = [words[top[k - 1]], score[top[k - 1]]];
  }
  return top;
}
