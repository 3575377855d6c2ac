/**
 * Ranking for site search, on top of Orama's per-property BM25 index:
 * complete words match exactly, the word being typed (the last one) also as a
 * prefix, and a word that matches nothing is retried with one typo. Documents
 * that contain more of the query's words rank first, BM25 orders the rest.
 *
 * Orama's own `search` either prefix-expands every word (noisy: "form" scores
 * "formset" like "form") or, with `exact`, filters on case-sensitive raw text,
 * so this calls its index component per word instead (Orama is pinned, see deno.json).
 */
import type { AnyOrama } from "@orama/orama";

const PROPS = ["title", "description", "body"];
/** Title weighs most, then description, then body. */
export const BOOST = { title: 3, description: 1.5, body: 1 };
const BM25 = { k: 1.2, b: 0.75, d: 0.5 };
/** Orama's English splitter: `_`, `'` and `-` stay inside a token (get_object_or_404). */
const SPLIT = /[^A-Za-zàèéìòóù0-9_'-]+/;
/** Prefix expansions and typo corrections count for less than the word as typed. */
const PREFIX_WEIGHT = 0.5;
const TYPO_WEIGHT = 0.7;

interface Scored {
  score: number;
  words: number;
}

export interface Ranked {
  /** Internal document ids, best first. */
  ids: number[];
  /** True when some word only matched with a typo (highlighting should allow one too). */
  typos: boolean;
}

interface RadixNode {
  find(p: { term: string; exact: boolean; tolerance: number }): Record<string, number[]>;
}

// deno-lint-ignore no-explicit-any
type Internals = { index: any; data: { index: unknown }; tokenizer: any };

function scoreWord(db: AnyOrama, word: string, exact: boolean, tolerance: number) {
  const o = db as unknown as Internals;
  const count = db.documentsStore.count(db.data.docs);
  return o.index.search(
    o.data.index,
    word,
    o.tokenizer,
    "english",
    PROPS,
    exact,
    tolerance,
    BOOST,
    BM25,
    count,
    undefined,
    1,
  ) as [number, number][];
}

/**
 * Words one typo away from `word` that pages use, looked up in the small title and
 * description vocabularies first; the body's is large and slow to search fuzzily.
 */
function corrections(db: AnyOrama, word: string): string[] {
  const o = db as unknown as Internals;
  const token = (o.tokenizer.tokenize(word, "english") as string[])[0];
  if (!token) return [];
  const trees = o.data.index as { indexes: Record<string, { node: RadixNode }> };
  for (const props of [["title", "description"], ["body"]]) {
    const found = new Set<string>();
    for (const p of props) {
      for (
        const w of Object.keys(
          trees.indexes[p].node.find({ term: token, exact: false, tolerance: 1 }),
        )
      ) {
        found.add(w);
      }
    }
    if (found.size) return [...found].slice(0, 5);
  }
  return [];
}

/** Ranks every document that matches any word of the query. */
export function rank(db: AnyOrama, q: string): Ranked {
  // A compound no page has as one token (TEMPLATES-OPTIONS) is searched as its parts.
  const words = [
    ...new Set(
      q.toLowerCase().split(SPLIT).filter(Boolean).flatMap((w) =>
        /[_'-]/.test(w) && scoreWord(db, w, true, 0).length === 0
          ? w.split(/[_'-]+/).filter(Boolean)
          : [w]
      ),
    ),
  ];
  const typing = !/\s$/.test(q);
  const acc = new Map<number, Scored>();
  let typos = false;
  let counted = 0;
  words.forEach((word, i) => {
    const last = i === words.length - 1;
    const hits = new Map<number, number>();
    const add = (list: [number, number][], weight: number) => {
      for (const [id, s] of list) hits.set(id, (hits.get(id) ?? 0) + s * weight);
    };
    add(scoreWord(db, word, true, 0), 1);
    // A word being typed that is not yet a whole word anywhere ("postg"): its completions.
    if (hits.size === 0) add(scoreWord(db, word, false, 0), last && typing ? 1 : PREFIX_WEIGHT);
    if (hits.size === 0 && word.length >= 4) {
      for (const fixed of corrections(db, word)) add(scoreWord(db, fixed, true, 0), TYPO_WEIGHT);
      if (hits.size) typos = true;
    }
    if (hits.size === 0) return; // a stop word, or a word no page has
    counted++;
    for (const [id, s] of hits) {
      const cur = acc.get(id);
      if (cur) [cur.score, cur.words] = [cur.score + s, cur.words + 1];
      else acc.set(id, { score: s, words: 1 });
    }
  });
  const ids = [...acc.entries()]
    .sort((a, b) => b[1].words - a[1].words || b[1].score - a[1].score)
    .map(([id]) => id);
  return { ids, typos: typos && counted > 0 };
}

/** The stored document for an internal id. */
export function docAt<T>(db: AnyOrama, id: number): T {
  return (db.data.docs as unknown as { docs: Record<number, T> }).docs[id];
}
