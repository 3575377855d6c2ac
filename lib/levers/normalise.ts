/**
 * How the levers read text: as the words the search's tokenizer sees in a query, lowercased
 * and without accents, so case, accents, spacing and punctuation never decide a match.
 */
import { fold, words } from "../search/engine/mod.ts";

/** The words of a phrase as a query's words are read (lowercased, accents dropped). */
export function phraseWords(text: string): string[] {
  return [...words(text.normalize("NFKC"), "")].map(fold);
}

/** A phrase's words as one key ("New  York" → "new york"). */
export const phraseKey = (text: string) => phraseWords(text).join(" ");

/** Whether a query's key holds a phrase's key as whole words. */
export function holdsPhrase(query: string, phrase: string): boolean {
  if (!phrase) return false;
  return ` ${query} `.includes(` ${phrase} `);
}

/**
 * The lookup of a list whose entries match a query exactly (its normalised key) or as a
 * phrase it holds as whole words: for a query, its exact entry first, then the contained ones
 * in list order (curations, answer pins).
 */
export function phraseLookup<T extends { query: string; match: "exact" | "contains" }>(
  list: T[],
): (q: string) => T[] {
  const exact = new Map<string, T>();
  const contains: { phrase: string; entry: T }[] = [];
  for (const e of list) {
    if (e.match === "exact") exact.set(phraseKey(e.query), e);
    else contains.push({ phrase: phraseKey(e.query), entry: e });
  }
  return (q: string) => {
    const key = phraseKey(q), first = exact.get(key);
    const held = contains.filter((x) => holdsPhrase(key, x.phrase)).map((x) => x.entry);
    return first ? [first, ...held] : held;
  };
}

/** Damerau distance of at most one: a letter deleted, inserted, replaced or two swapped. */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b) return false;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true; // replaced
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}
