/**
 * Citations as the answer uses them: `[n]` renumbered in the order of first citation,
 * citations of sources that were not given dropped, and the list of sources cut to the
 * ones cited, so `sources[n - 1]` is always what `[n]` points at.
 */

const CITATION = /\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\](?:\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\])*/g;

/** The answer with its citations renumbered 1, 2, … by first use, and the old numbers used. */
export function renumber(answer: string, count: number): { answer: string; used: number[] } {
  const order = new Map<number, number>();
  const text = answer.replace(CITATION, (whole) => {
    const nums = [...whole.matchAll(/\d{1,3}/g)].map((m) => Number(m[0]))
      .filter((n) => n >= 1 && n <= count);
    if (!nums.length) return "";
    const mapped = [
      ...new Set(nums.map((n) => {
        if (!order.has(n)) order.set(n, order.size + 1);
        return order.get(n)!;
      })),
    ];
    return `[${mapped.join(", ")}]`;
  });
  // A dropped citation leaves "word ." behind: close the gap.
  return {
    answer: text.replace(/ +([.,;:!?])/g, "$1").replace(/ {2,}/g, " ").trim(),
    used: [...order.keys()],
  };
}

/** The answer renumbered and the sources it cites, in the order of their first citation. */
export function citedOnly<T>(answer: string, sources: T[]): { answer: string; sources: T[] } {
  const { answer: text, used } = renumber(answer, sources.length);
  return { answer: text, sources: used.map((n) => sources[n - 1]) };
}
