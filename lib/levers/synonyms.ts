/**
 * Synonyms of a site: two-way groups (any word finds the others' pages) and one-way
 * mappings (`nyc` also finds `new york`), checked entry by entry, and compiled into the
 * expansion a search applies at query time (lib/search/engine/query/rank.ts takes it as `Expand`).
 */
import { invalid } from "../errors.ts";
import { type Alternatives, type Expand, MAX_ALTERNATIVES } from "../search/mod.ts";
import { type Fields, givenId, list, record, text, uniqueIds } from "./check.ts";
import { newId } from "../sites/keys.ts";
import { LIMITS } from "./limits.ts";
import { oneEditApart, phraseKey, phraseWords } from "./normalise.ts";
import type { Synonym } from "../wire_types.ts";

export type { Synonym };

/** A phrase of 1 to 4 words. */
function phrase(value: unknown, param: string): string {
  const s = text(value, param, LIMITS.phraseChars);
  const n = phraseWords(s).length;
  if (n === 0) throw invalid(param, `${param} must hold a word.`);
  if (n > LIMITS.wordsPerPhrase) {
    throw invalid(param, `${param} may be a phrase of at most ${LIMITS.wordsPerPhrase} words.`);
  }
  return s;
}

/** Phrases of one entry: no two the same once normalised. */
function phrases(value: unknown, param: string, min: number): string[] {
  const items = list(value, param, LIMITS.wordsPerEntry, min);
  const seen = new Map<string, number>();
  return items.map((v, i) => {
    const p = phrase(v, `${param}[${i}]`);
    const key = phraseKey(p);
    if (seen.has(key)) {
      throw invalid(`${param}[${i}]`, `${param}[${i}] repeats ${param}[${seen.get(key)}].`);
    }
    seen.set(key, i);
    return p;
  });
}

function entry(value: unknown, param: string): Synonym & { given?: string } {
  const o: Fields = record(value, param, ["id", "words", "word", "means"]);
  const given = givenId(o.id, `${param}.id`);
  const id = given ?? newId("syn");
  if ("words" in o) {
    if ("word" in o || "means" in o) {
      throw invalid(
        `${param}.words`,
        `${param} has either words (two-way) or word and means (one-way).`,
      );
    }
    return { id, words: phrases(o.words, `${param}.words`, 2), given };
  }
  if (!("word" in o)) {
    throw invalid(`${param}.words`, `${param} needs words (two-way) or word and means (one-way).`);
  }
  const word = phrase(o.word, `${param}.word`);
  const means = phrases(o.means, `${param}.means`, 1);
  const i = means.findIndex((m) => phraseKey(m) === phraseKey(word));
  if (i >= 0) throw invalid(`${param}.means[${i}]`, `${param}.means[${i}] is the word itself.`);
  return { id, word, means };
}

/** The body of PUT …/synonyms as the list to store, or a 400 naming the first bad field. */
export function checkSynonyms(body: unknown): Synonym[] {
  const o = record(body, "body", ["synonyms"]);
  const items = list(o.synonyms, "synonyms", LIMITS.synonyms);
  const out = items.map((v, i) => entry(v, `synonyms[${i}]`));
  uniqueIds(out.map((e) => e.given), "synonyms");
  return out.map(({ given: _, ...e }) => e);
}

/** Typed words shorter than this are never read as a typo of a synonym. */
const MIN_TYPO = 4;

/** The expansion of a site's synonyms: which query words other words may stand for. */
export function compileSynonyms(list: Synonym[]): Expand | undefined {
  // Phrase key → lists of phrases (each as its words) it also finds: a two-way group's list is
  // shared by all its words (each leaves itself out when looked up), so compiling is linear.
  const table = new Map<string, string[][][]>();
  const add = (from: string, to: string[][]) => {
    if (!from) return;
    const lists = table.get(from);
    if (lists) lists.push(to);
    else table.set(from, [to]);
  };
  // The same group or mapping twice adds nothing (but work): it is compiled once.
  const entries = new Set<string>();
  for (const s of list) {
    const read = ("words" in s ? s.words : s.means).map(phraseWords).filter((p) => p.length);
    const from = "words" in s ? "" : phraseKey(s.word);
    const id = JSON.stringify([from, read.map((p) => p.join(" ")).sort()]);
    if (entries.has(id)) continue;
    entries.add(id);
    if ("words" in s) { for (const a of read) add(a.join(" "), read); }
    else add(from, read);
  }
  if (!table.size) return undefined;
  // Each phrase's alternatives, told once and capped, made now rather than on every query.
  const resolved = new Map<string, string[][]>();
  for (const [key, lists] of table) {
    const alts = new Map<string, string[]>();
    all: for (const phrases of lists) {
      for (const p of phrases) {
        if (alts.size === MAX_ALTERNATIVES) break all;
        const k = p.join(" ");
        if (k !== key && !alts.has(k)) alts.set(k, p);
      }
    }
    if (alts.size) resolved.set(key, [...alts.values()]);
  }
  const longest = Math.max(...[...table.keys()].map((k) => k.split(" ").length));
  // One-word synonyms by length and first letter, and by length and last letter: a word one
  // edit from another keeps one of the two (it is at least MIN_TYPO long), so a typo is
  // compared with a few of them, not all.
  const near = new Map<string, string[]>();
  const file = (key: string, k: string) => {
    const list = near.get(key);
    if (list) list.push(k);
    else near.set(key, [k]);
  };
  for (const k of table.keys()) {
    if (k.includes(" ") || k.length < MIN_TYPO) continue;
    file(`${k.length}<${k[0]}`, k);
    file(`${k.length}>${k.at(-1)}`, k);
  }
  const typoOf = (w: string) => {
    for (let n = w.length - 1; n <= w.length + 1; n++) {
      for (const key of [`${n}<${w[0]}`, `${n}>${w.at(-1)}`]) {
        const hit = near.get(key)?.find((k) => oneEditApart(w, k));
        if (hit) return hit;
      }
    }
  };
  const lookup = (key: string): string[][] | undefined => resolved.get(key);
  return (words: string[], known: (w: string) => boolean): Alternatives[] => {
    const out: Alternatives[] = [];
    const folded = words.map((w) => phraseWords(w).join(" "));
    for (let i = 0; i < folded.length;) {
      let found: Alternatives | undefined;
      // The longest phrase starting here wins ("new york city" before "new york").
      for (let n = Math.min(longest, folded.length - i); n >= 1 && !found; n--) {
        const phrases = lookup(folded.slice(i, i + n).join(" "));
        if (phrases) found = { from: i, to: i + n, phrases };
      }
      // A word no page uses, one edit from a synonym: read as that synonym (a typo of it).
      const w = folded[i];
      if (!found && w.length >= MIN_TYPO && !known(w)) {
        const typo = typoOf(w);
        if (typo) found = { from: i, to: i + 1, phrases: [[typo], ...lookup(typo) ?? []] };
      }
      if (found) out.push(found);
      i = found ? found.to : i + 1;
    }
    return out;
  };
}
