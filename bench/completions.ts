/**
 * Completions of the word being typed, in process, on the bench corpus's vocabularies:
 *
 *   deno run -A bench/completions.ts [ROOT]
 *
 * builds the vocabulary of the first 200 and 2,000 pages' words (as a site's index does) in the
 * checkout at ROOT (this one by default), then prints the CPU time of a completion of each of
 * the bench's 300 queries' last words (prefixes of 2 to 6 letters) before and after the pass
 * after a change, and the pass's order: its time and its longest step. Run it for
 * two checkouts in turn (e.g. main's worktree as ROOT) to compare them on one machine.
 */
import { loadCorpus, makeQueries } from "./corpus.ts";

const root = Deno.args[0] ?? new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const { Vocab } = await import(`${root}/lib/search/engine/store/vocab.ts`);
const { completions, prepareOrder } = await import(`${root}/lib/search/engine/store/word_order.ts`);
const { words, written } = await import(`${root}/lib/search/engine/analysis/tokens.ts`);

const pages = await loadCorpus();
const queries = makeQueries(pages.slice(0, 2000), 300);
const prefixes = queries.flatMap((q) => {
  const w = q.split(" ").at(-1)!;
  return [2, 3, 4, 6].filter((n) => n < w.length).map((n) => w.slice(0, n));
});

for (const n of [200, 2000]) {
  const vocab = new Vocab();
  for (const p of pages.slice(0, n)) {
    for (const text of [p.title, p.body]) {
      for (const w of words(text, "en")) {
        const f = written(w);
        vocab.set(f, (vocab.get(f) ?? 0) + 1);
      }
    }
  }
  const round = () => {
    const t = performance.now();
    let found = 0;
    for (let r = 0; r < 5; r++) for (const p of prefixes) found += completions(vocab, p, 8).length;
    return { us: (performance.now() - t) * 1000 / (5 * prefixes.length), found };
  };
  round();
  const before = round();
  // The order of three copies (their own objects, the same words): the last one's figures.
  let longest = 0, steps = 0, passMs = 0;
  for (const copy of [vocab.packed(), vocab.packed(), vocab]) {
    [longest, steps] = [0, 0];
    const t = performance.now();
    // 0: main's `sortedFrom` (an order only from 20,000 words there) made to order any size.
    const pass = prepareOrder(copy, 0);
    for (let s = performance.now(); !pass.next().done; s = performance.now()) {
      longest = Math.max(longest, performance.now() - s);
      steps++;
    }
    passMs = performance.now() - t;
  }
  round();
  const after = round();
  console.log(
    `${n} pages, ${vocab.size} words: a completion ${before.us.toFixed(2)} µs before the pass, ` +
      `${after.us.toFixed(2)} µs after (${after.found === before.found ? "same" : "OTHER"} ` +
      `results); the pass's order ${passMs.toFixed(2)} ms in ${steps + 1} steps, longest ` +
      `${longest.toFixed(2)} ms`,
  );
}
