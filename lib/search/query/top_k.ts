/** The first documents of a ranking, without sorting them all (rank.ts). */

/**
 * The `k` best documents, best first: more query words, then a higher score; ties keep the
 * order of `ids`, exactly as a stable sort of them all would (only a few are kept in order).
 */
export function topK(
  ids: number[],
  k: number,
  acc: { score: ArrayLike<number>; words: ArrayLike<number> },
): number[] {
  const { score, words } = acc;
  const better = (a: number, b: number) => words[b] - words[a] || score[b] - score[a];
  if (k * 4 >= ids.length) return ids.sort(better).slice(0, k);
  const top: number[] = [];
  for (const id of ids) {
    if (top.length === k && better(id, top[k - 1]) >= 0) continue;
    if (top.length === k) top.pop();
    let i = top.length;
    while (i > 0 && better(id, top[i - 1]) < 0) i--;
    top.splice(i, 0, id);
  }
  return top;
}
