/** The first documents of a ranking, without sorting them all (rank.ts). */

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
  if (k * 4 >= n) {
    const all: number[] = [];
    for (let i = 0; i < n; i++) all.push(ids[i]);
    return all.sort(better).slice(0, k);
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
