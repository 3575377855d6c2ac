/**
 * Meaning a site states itself: an abbreviation defined in its text ("Content Delivery
 * Network (CDN)", "CDN (Content Delivery Network)", "Content Delivery Network, or simply
 * CDN") or a second name given in so many words
 * ("X, also called Y", "also known as", "aka"). Each is an equivalence the owner never had
 * to write, used like a two-way synonym at a lower weight (answers' retrieval), and shown
 * to the owner as a suggestion to accept or drop. Names a site gives a page by its URLs
 * (a redirect, a canonical URL) have the same shape (url_names.ts).
 */

export type EquivalenceKind = "abbreviation" | "also-called" | "redirect" | "canonical";

export interface Equivalence {
  /** The two names, the shorter first: `["cdn", "content delivery network"]`, lowercased. */
  words: [string, string];
  kind: EquivalenceKind;
  /** How many times the site says it. */
  seen: number;
  /** A name from URLs: the path that names the page (redirecting, or declaring it canonical), and the page's. */
  urls?: [string, string];
}

/** A phrase stays a synonym's size (docs/api.md: up to 4 words). */
export const MAX_PHRASE_WORDS = 4;
const MAX_TEXT_CHARS = 200_000;
const MAX_ENTRIES = 1_000;

/** "(ABBR)": the words before it may spell it out. */
const SHORT_IN_PARENS = /\((\p{Lu}[\p{Lu}\p{N}&]{1,7}s?)\)/gu;
/** "Long Form Words, or simply ABBR" / "or merely" / "or just" / "ABBR for short". */
const SHORT_AFTER_OR =
  /,?\s+(?:or (?:simply|merely|just|briefly) (\p{Lu}[\p{Lu}\p{N}&]{1,7}s?)\b|\(?(\p{Lu}[\p{Lu}\p{N}&]{1,7}s?) for short\b)/gu;
/** "ABBR (Long Form Words)". */
const SHORT_THEN_LONG = /\b(\p{Lu}[\p{Lu}\p{N}&]{1,7})\s+\(([\p{L}][\p{L}\p{N}'’ -]{3,80})\)/gu;
/** "X, also called Y" / "also known as" / "aka" / "(also known as Y)". */
const ALSO = /\s*[,(]\s*(?:also (?:called|known as|referred to as)|a\.?k\.?a\.?)\s+/giu;
/** The name after "also called": a few words, up to punctuation or a verb. */
const NAME_AFTER =
  /^["“']?([\p{L}][\p{L}\p{N}'’ -]{1,60}?)["”']?(?=[,.;:)]|\s+(?:is|are|was|which|that)\b|$)/u;
/** Names that are no names: starting with a small word or a digit. */
const NOT_A_NAME = /^(?:to|of|and|or|for|in|on|by|with|as|is|it|this|that|support|\d)/i;

const lettersOf = (phrase: string) =>
  phrase.split(/[\s-]+/).filter(Boolean).map((w) => w[0].toLowerCase()).join("");

const SMALL = /\b(?:of|and|for|the|to|in|on|a|an)\b/gi;

/** Whether a phrase's initials spell an abbreviation, with or without its small words. */
const spells = (phrase: string, abbr: string) =>
  lettersOf(phrase) === abbr || lettersOf(phrase.replace(SMALL, " ")) === abbr;

/** The last words of `before` whose initials spell `abbr`. */
function expansion(before: string, abbr: string): string | null {
  const want = abbr.replace(/s$/, "").replace(/&/g, "").toLowerCase();
  const words = before.trim().split(/\s+/);
  for (let n = 1; n <= Math.min(words.length, want.length + 2); n++) {
    const phrase = words.slice(-n).join(" ");
    if (lettersOf(phrase)[0] === want[0] && spells(phrase, want)) return phrase;
  }
  return null;
}

const tidy = (s: string) =>
  s.replace(/\s+/g, " ").trim().toLowerCase().replace(/^(?:a|an|the) /, "");
const wordCount = (s: string) => s.split(" ").length;

/** The equivalences one text states, each once, in the order first met. */
export function mineEquivalences(text: string): Equivalence[] {
  const found = new Map<string, Equivalence>();
  const add = (a: string, b: string, kind: EquivalenceKind) => {
    const x = tidy(a), y = tidy(b);
    if (!x || !y || x === y || wordCount(x) > MAX_PHRASE_WORDS) return;
    if (wordCount(y) > MAX_PHRASE_WORDS) return;
    const words = (x.length <= y.length ? [x, y] : [y, x]) as [string, string];
    const key = words.join("\u0000");
    const had = found.get(key);
    if (had) had.seen++;
    else if (found.size < MAX_ENTRIES) found.set(key, { words, kind, seen: 1 });
  };
  const t = text.slice(0, MAX_TEXT_CHARS);
  if (t.includes("(")) {
    for (const m of t.matchAll(SHORT_IN_PARENS)) {
      const before = t.slice(Math.max(0, m.index - 120), m.index).split(/[.;:!?()\n]/).pop()!;
      const long = expansion(before, m[1]);
      if (long) add(m[1], long, "abbreviation");
    }
    for (const m of t.matchAll(SHORT_THEN_LONG)) {
      const long = m[2].trim();
      if (spells(long, m[1].toLowerCase())) add(m[1], long, "abbreviation");
    }
  }
  for (const m of t.matchAll(SHORT_AFTER_OR)) {
    const before = t.slice(Math.max(0, m.index - 120), m.index).split(/[.;:!?()\n]/).pop()!;
    const abbr = m[1] ?? m[2], long = expansion(before, abbr);
    if (long) add(abbr, long, "abbreviation");
  }
  for (const m of t.matchAll(ALSO)) {
    // The name before: the last two words of the clause (a synonym is at most 4 words).
    const before = t.slice(Math.max(0, m.index - 60), m.index).split(/[.;:!?()\n,]/).pop()!
      .trim().split(/\s+/).slice(-2).join(" ");
    const after = NAME_AFTER.exec(t.slice(m.index + m[0].length, m.index + m[0].length + 80));
    if (!before || !after || NOT_A_NAME.test(after[1]) || NOT_A_NAME.test(before)) continue;
    add(before, after[1], "also-called");
  }
  return [...found.values()];
}

/** The equivalences a whole site states, most often said first, at most 1,000. */
export const siteEquivalences = (texts: Iterable<string>): Equivalence[] =>
  mergeEquivalences(function* () {
    for (const text of texts) yield mineEquivalences(text);
  }());

/** The equivalences of many texts (each as mineEquivalences gave them) as siteEquivalences. */
export function mergeEquivalences(perText: Iterable<Equivalence[]>): Equivalence[] {
  const all = new Map<string, Equivalence>();
  for (const list of perText) {
    for (const e of list) {
      const key = e.words.join("\u0000");
      const had = all.get(key);
      if (had) had.seen += e.seen;
      else if (all.size < MAX_ENTRIES) all.set(key, { ...e });
    }
  }
  return [...all.values()].sort((a, b) => b.seen - a.seen);
}
